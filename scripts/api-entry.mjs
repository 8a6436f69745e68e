// dist/bundle/api.js, what `npm start` runs (scripts/bundle.mjs builds it from this file): the API's CommonJS bundle
// beside it, dist/bundle/api.cjs, run through V8's code cache.
import { URL, fileURLToPath } from 'node:url';
import { runWithCodeCache } from './code-cache.mjs';

runWithCodeCache(fileURLToPath(new URL('./api.cjs', import.meta.url)));
