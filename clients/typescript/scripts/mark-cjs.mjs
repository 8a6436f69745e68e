// Marks dist/cjs as CommonJS, so Node and TypeScript read its .js and .d.ts files as CommonJS inside this ES-module
// package.
import { writeFileSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

writeFileSync(fileURLToPath(new URL('../dist/cjs/package.json', import.meta.url)), '{ "type": "commonjs" }\n');
