// The OpenAPI document the app serves at /openapi.json, built in memory (never listening): what Redocly lints and the
// SDKs are generated from.
// Run: npx tsx scripts/openapi-document.ts [out.json] — with the built-in plans and PUBLIC_URL=http://localhost:3000 unless the environment sets them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

export async function openApiDocument(env: Record<string, string | undefined> = {}): Promise<Record<string, unknown>> {
  // Load shedding off: the document is built in memory, and a busy machine's start-up lag would shed its one request.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    ...env,
    QR_DATA_DIR: ':memory:',
    RENDER_THREADS: '1',
    MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  const app = await buildApp(config);
  try {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
    return res.json() as Record<string, unknown>;
  } finally {
    await app.close();
  }
}

export function documentText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = documentText(await openApiDocument(process.env));
  const out = process.argv[2];
  if (out) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
  } else process.stdout.write(text);
}
