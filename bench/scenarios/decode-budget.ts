// Decoding on a budget: how long a 16-megapixel noise JPEG takes to answer, and another account's 256 px decode
// meanwhile.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Row } from '../load.js';
import { createAccountKeys, rssMiB, type Started } from '../processes.js';
import { startApi, type BenchScenario } from '../harness.js';

const DECODE_PATH = '/api/v1/QRManager/decode';
/** Noise images in flight from the flooding account: its whole share of the decoder. */
const FLOOD_IN_FLIGHT = 4;
/** Decodes of each kind measured, and the longest each may take. */
const POSTS = { noise: 3, bystander: 20 };
const TARGET_MS = { noise: 5_000, bystander: 1_000 };

interface Answer {
  status: number;
  ms: number;
}

async function post(port: number, key: string, image: Buffer, type: string): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${DECODE_PATH}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': type },
    body: new Uint8Array(image),
    signal: AbortSignal.timeout(120_000),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

/** `count` posts one after another. */
async function inTurn(count: number, send: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await send());
  return answers;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

function rowOfAnswers(id: string, name: string, answers: Answer[], seconds: number, server: Started): Row {
  const ms = answers.map((answer) => answer.ms);
  return {
    id,
    name,
    rps: answers.length / seconds,
    p50: Math.round(percentile(ms, 50)),
    p99: Math.round(percentile(ms, 99)),
    rssMiB: rssMiB(server.child.pid),
    non2xx: answers.filter((answer) => answer.status < 200 || answer.status > 299).length,
    errors: 0,
  };
}

function statuses(answers: Answer[]): string {
  const counts = new Map<number, number>();
  for (const answer of answers) counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count} × ${status}`).join(', ');
}

export async function decodeBudget(): Promise<{ rows: Row[]; summary: string; noiseMs: number; besideMs: number }> {
  const side = 4000;
  // Grey noise at JPEG quality 20: 16 megapixels, the decode limit, in about 4 MB; no code anywhere for any reader.
  const noise = await sharp(randomBytes(side * side), { raw: { width: side, height: side, channels: 1 } })
    .jpeg({ quality: 20 })
    .toBuffer();
  const dataDir = mkdtempSync(join(tmpdir(), 'qrm-bench-decode-'));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  let server: Started | undefined;
  try {
    const [flooderKey] = createAccountKeys(env, 'decode-flood@example.com', 'pro', 1);
    const [bystanderKey] = createAccountKeys(env, 'decode-bystander@example.com', 'pro', 1);
    server = await startApi(env);
    const { port } = server;
    const code = Buffer.from(
      await (
        await fetch(`http://127.0.0.1:${port}/api/v1/QRManager/generate`, {
          method: 'POST',
          headers: { 'x-api-key': bystanderKey!, 'content-type': 'application/json' },
          body: JSON.stringify({
            content: 'https://example.com/bystander',
            type: 'url',
            outputFormat: 'png',
            size: 256,
          }),
        })
      ).arrayBuffer(),
    );
    const small = () => post(port, bystanderKey!, code, 'image/png');
    const noisy = () => post(port, flooderKey!, noise, 'image/jpeg');
    // Warm: both decode threads started and their readers loaded.
    await Promise.all([small(), small()]);

    const aloneStarted = performance.now();
    const alone = await inTurn(POSTS.noise, noisy);
    const aloneSeconds = (performance.now() - aloneStarted) / 1000;
    const idle = await inTurn(POSTS.bystander, small);

    // The flood keeps its share of the decoder busy with noise while the bystander decodes one image after another.
    let flooding = true;
    const flood: Answer[] = [];
    const flooders = Array.from({ length: FLOOD_IN_FLIGHT }, async () => {
      while (flooding) flood.push(await noisy());
    });
    const besideStarted = performance.now();
    const beside = await inTurn(POSTS.bystander, small);
    const besideSeconds = (performance.now() - besideStarted) / 1000;
    flooding = false;
    await Promise.all(flooders);

    const noiseP50 = percentile(
      alone.map((answer) => answer.ms),
      50,
    );
    const floodMax = Math.max(...flood.map((answer) => answer.ms));
    const besideMax = Math.max(...beside.map((answer) => answer.ms));
    const verdict = (value: number, target: number) => (value <= target ? 'met' : 'NOT met');
    const summary =
      `A ${side} × ${side} grey-noise JPEG (${(noise.length / 1e6).toFixed(1)} MB): ${statuses(alone)} alone, ` +
      `median ${Math.round(noiseP50)} ms ` +
      (`(target ≤ ${TARGET_MS.noise} ms — ${verdict(noiseP50, TARGET_MS.noise)}); under the flood ` +
        `${statuses(flood)}, the slowest ${Math.round(floodMax)} ms. `) +
      `Another account's 256 px decode: p99 ${Math.round(
        percentile(
          idle.map((a) => a.ms),
          99,
        ),
      )} ms alone, ` +
      `${Math.round(
        percentile(
          beside.map((a) => a.ms),
          99,
        ),
      )} ms (slowest ${Math.round(besideMax)} ms) beside ${FLOOD_IN_FLIGHT} noise images in flight ` +
      `(target ≤ ${TARGET_MS.bystander} ms — ${verdict(besideMax, TARGET_MS.bystander)}); ${statuses(beside)}.`;
    console.log(summary);
    const rows = [
      rowOfAnswers(
        'd-noise',
        `16 MP noise JPEG decoded, one at a time (${statuses(alone)})`,
        alone,
        aloneSeconds,
        server,
      ),
      rowOfAnswers(
        'd-idle',
        '256 px decode, one at a time, alone',
        idle,
        (idle.reduce((sum, a) => sum + a.ms, 0) || 1) / 1000,
        server,
      ),
      rowOfAnswers(
        'd-bystander',
        `the same beside another account's ${FLOOD_IN_FLIGHT} noise images in flight`,
        beside,
        besideSeconds,
        server,
      ),
    ];
    return { rows, summary, noiseMs: noiseP50, besideMs: besideMax };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const decodeBudgetScenario: BenchScenario = {
  ids: ['d-noise', 'd-idle', 'd-bystander'],
  run: async () => {
    const result = await decodeBudget();
    return {
      rows: result.rows,
      figures: { decodeNoiseMs: result.noiseMs, decodeBesideFloodMs: result.besideMs },
      sections: { decode: result.summary },
    };
  },
};
