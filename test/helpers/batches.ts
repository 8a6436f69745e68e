// Batch test helpers: post a batch, wait for it to finish, and unpack its archive with the system's unzip.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { decodePngFiles } from './decode.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

export const BATCHES_URL = '/api/v1/QRManager/batches';

export function postBatch(app: FastifyInstance, key: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: BATCHES_URL,
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** GET as this key's caller: what waitForBatch and withArchive poll and read through. */
export function getAs(app: FastifyInstance, key: string): (url: string) => Promise<LightMyRequestResponse> {
  return (url) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

/** The id of a batch the API accepted: fails unless the answer is a 202. */
export function acceptedBatchId(res: LightMyRequestResponse): string {
  expect(res.statusCode, res.body).toBe(202);
  return (JSON.parse(res.body) as { id: string }).id;
}

/** DELETE …/batches/{id} as this key's caller: cancels a batch still running, deletes a finished one. */
export function deleteBatch(app: FastifyInstance, key: string, id: string) {
  return app.inject({ method: 'DELETE', url: `${BATCHES_URL}/${id}`, headers: { 'x-api-key': key } });
}

/** Items as a client sends them: any field may be set or replaced, the point of the validation tests. */
export function urlItems(
  count: number,
  tag: string,
  extra: Record<string, unknown> = {},
): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => ({
    content: `https://example.com/${tag}/${i}`,
    type: 'url',
    outputFormat: 'png',
    ...extra,
  }));
}

export interface BatchJson {
  id: string;
  status: string;
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
}

/** Polls GET …/batches/{id} until the batch is finished; bounded in time. */
export async function waitForBatch(
  get: (url: string) => Promise<{ statusCode: number; body: string }>,
  id: string,
  timeoutMs = 60_000,
): Promise<BatchJson> {
  let last = '';
  const finished = async () => {
    const res = await get(`${BATCHES_URL}/${id}`);
    if (res.statusCode !== 200) throw new Error(`GET batch answered ${res.statusCode}: ${res.body}`);
    last = res.body;
    const batch = JSON.parse(res.body) as BatchJson;
    return ['completed', 'failed', 'cancelled'].includes(batch.status) && batch;
  };
  return waitFor(`batch ${id} to finish`, finished, { timeoutMs, intervalMs: 100 }).catch((error: Error) => {
    throw new Error(`${error.message}; last answer: ${last}`);
  });
}

export interface UnpackedArchive {
  dir: string;
  files: string[];
  manifest: string[][];
}

/** Unpacks with Info-ZIP's unzip (not our writer's code) and parses manifest.csv. */
export async function unpackArchive(zip: Buffer): Promise<UnpackedArchive> {
  const dir = await mkdtemp(join(tmpdir(), 'qrm-archive-'));
  await writeFile(join(dir, 'archive.zip'), zip);
  await run('unzip', ['-q', '-d', join(dir, 'out'), join(dir, 'archive.zip')], { maxBuffer: 16 * 1024 * 1024 });
  const files = (await readdir(join(dir, 'out'))).sort();
  const csv = await readFile(join(dir, 'out', 'manifest.csv'), 'utf8');
  const manifest = parse(csv) as string[][];
  return { dir: join(dir, 'out'), files, manifest };
}

/**
 * Decodes the files of these manifest rows with ZXing, zbar and jsQR, beside what each should read (`contentOf` its
 * index).
 */
export async function decodeManifestRows(
  dir: string,
  rows: string[][],
  contentOf: (index: string) => string,
): Promise<{ zbar: string[]; zxing: string[]; jsqr: string[]; expected: string[] }> {
  const decoded = await decodePngFiles(rows.map((row) => join(dir, row[2]!)));
  return {
    zbar: decoded.map((d) => d.zbar),
    zxing: decoded.map((d) => d.zxing),
    jsqr: decoded.map((d) => d.jsqr),
    expected: rows.map((row) => contentOf(row[0]!)),
  };
}

export interface BatchArchive extends UnpackedArchive {
  /** The manifest without its header row. */
  rows: string[][];
}

/**
 * GETs the batch's archive (200, application/zip), unpacks it, hands it to `use`, and removes the unpacked files
 * afterwards, whether `use` passed or threw.
 */
export async function withArchive<T>(
  get: (url: string) => Promise<LightMyRequestResponse>,
  id: string,
  use: (archive: BatchArchive) => Promise<T>,
): Promise<T> {
  const res = await get(`${BATCHES_URL}/${id}/archive`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  const unpacked = await unpackArchive(res.rawPayload);
  try {
    return await use({ ...unpacked, rows: unpacked.manifest.slice(1) });
  } finally {
    await rm(join(unpacked.dir, '..'), { recursive: true, force: true });
  }
}

/** Asserts that ZXing, zbar and jsQR each read the file of every one of these rows as `contentOf` its index. */
export async function expectRowsReadByAll(
  dir: string,
  rows: string[][],
  contentOf: (index: string) => string,
): Promise<void> {
  const { zbar, zxing, jsqr, expected } = await decodeManifestRows(dir, rows, contentOf);
  expect(expected).toHaveLength(rows.length);
  expect({ zbar, zxing, jsqr }).toEqual({ zbar: expected, zxing: expected, jsqr: expected });
}

/** The batch API as one key's caller sees it through `app`: what the batch suites do with it, one call each. */
export function batchCaller(app: FastifyInstance, key: string) {
  const get = getAs(app, key);
  return {
    get,
    /** POSTs a batch (a CSV body with `content-type: text/csv`); fails unless it is accepted; resolves with its id. */
    start: async (body: unknown, headers: Record<string, string> = {}) =>
      acceptedBatchId(await postBatch(app, key, body, headers)),
    finished: (id: string, timeoutMs?: number) => waitForBatch(get, id, timeoutMs),
    withArchive: <T>(id: string, use: (archive: BatchArchive) => Promise<T>) => withArchive(get, id, use),
    remove: (id: string) => deleteBatch(app, key, id),
  };
}
