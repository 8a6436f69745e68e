// npm run docs:config: writes docs/configuration.md from the config schema and its reference lines.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationMarkdown } from '../src/config-reference.js';

writeFileSync(join(import.meta.dirname, '..', 'docs', 'configuration.md'), configurationMarkdown());
