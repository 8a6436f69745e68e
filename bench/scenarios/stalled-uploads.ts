// Bench rows: another account's generate p99 and the server's RSS while uploads stall (200 anonymous playground decodes
// and
// 60 free-key decodes, each sending all but the last byte of 8 MiB), against the same account on an idle server.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { collectGarbage } from '../collect-garbage.js';
import { neighbourDriver, withNeighbours, type BenchScenario, type Figures } from '../harness.js';
import { rowOf, type Row } from '../load.js';
import { freePort, rssMiB } from '../processes.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const BODY_BYTES = 8 * 1024 * 1024;
const ANONYMOUS_UPLOADS = 200;
const KEYED_UPLOADS = 60;
/** The free key's uploads start at this rate, as the attack that was reported did. */
const KEYED_PER_SECOND = 8;
/** The limits the work sets: the neighbour's p99 at most twice idle; RSS after the attack within 20% of idle. */
const MAX_RATIO = { p99: 2, rss: 1.2 };
/** After the attacker hangs up, how long the neighbour goes on generating before the server's RSS is read again. */
const SETTLE_SECONDS = 5;

/**
 * One stalled upload: the head and all but the last byte of the body, then nothing; what the server answered, if
 * anything.
 */
function stall(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  answers: Map<string, number>,
): Socket {
  const socket = connect(port, '127.0.0.1');
  const head = [
    `POST ${path} HTTP/1.1`,
    'host: localhost',
    `content-length: ${body.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  socket.write(body.subarray(0, body.length - 1));
  let first = true;
  socket.on('data', (chunk: Buffer) => {
    if (!first) return;
    first = false;
    const status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 'other';
    answers.set(status, (answers.get(status) ?? 0) + 1);
  });
  socket.on('error', () => undefined); // a refused upload's connection is closed with unread bytes: a reset is expected
  return socket;
}

function tally(answers: Record<string, number>): string {
  return (
    Object.entries(answers)
      .map(([status, count]) => `${count}× ${status}`)
      .join(', ') || 'none'
  );
}

interface AttackTally {
  anonymous: Record<string, number>;
  keyed: Record<string, number>;
}

/**
 * The attacker's side, in a process of its own (as the attacker is another machine): it opens the stalled uploads,
 * holds
 * them until told to stop on stdin, then hangs up and prints what the server answered.
 */
async function attack(port: number, freeKey: string): Promise<void> {
  const body = Buffer.alloc(BODY_BYTES, 0x89);
  const sockets: Socket[] = [];
  const anonymous = new Map<string, number>();
  const keyed = new Map<string, number>();
  const stopped = new Promise<void>((resolve) => process.stdin.once('end', resolve).resume());
  let stopping = false;
  void stopped.then(() => (stopping = true));
  for (let i = 0; i < ANONYMOUS_UPLOADS; i++)
    sockets.push(stall(port, '/portal/playground/decode', { 'content-type': 'image/png' }, body, anonymous));
  for (let i = 0; i < KEYED_UPLOADS && !stopping; i++) {
    sockets.push(
      stall(port, '/api/v1/QRManager/decode', { 'content-type': 'image/png', 'x-api-key': freeKey }, body, keyed),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000 / KEYED_PER_SECOND));
  }
  await stopped;
  for (const socket of sockets) socket.destroy();
  const result: AttackTally = { anonymous: Object.fromEntries(anonymous), keyed: Object.fromEntries(keyed) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Starts the attacker process; `stop` makes it hang up and resolves with what its uploads got. */
function attackInChild(port: number, freeKey: string): { stop(): Promise<AttackTally> } {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'attack', String(port), freeKey], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    stop: async () => {
      child.stdin.end();
      const line = await lines.next();
      if (line.done) throw new Error('the attacker exited without its tally');
      return JSON.parse(line.value) as AttackTally;
    },
  };
}

export interface StalledUploadsOutcome {
  rows: Row[];
  figures: Pick<Figures, 'stalledP99Ratio' | 'stalledRssRatio'>;
}

/** Runs the scenario on a server of its own (default limits): the idle row, then the row under the stalled uploads. */
export async function stalledUploads(): Promise<StalledUploadsOutcome> {
  const inspectPort = await freePort();
  return withNeighbours(
    'stalled',
    async (service) => {
      const { server, intruderKey: freeKey } = service;
      const { port } = server;
      const pid = server.child.pid;
      const neighbour = neighbourDriver(service);
      if (WARMUP > 0) await neighbour(WARMUP);
      const idle = await neighbour(DURATION);
      const rssIdle = rssMiB(pid);

      let peak = rssIdle;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 200);
      const attacker = attackInChild(port, freeKey);
      let attacked;
      let answers: AttackTally;
      try {
        attacked = await neighbour(DURATION);
      } finally {
        answers = await attacker.stop();
        clearInterval(sampler);
      }
      // A live server goes on serving after an attack: its RSS is read after the neighbour's next seconds, as idle's
      // was,
      // then again after a major GC: what is still resident then is held by something, not garbage awaiting collection.
      await neighbour(SETTLE_SECONDS);
      const rssServing = rssMiB(pid);
      collectGarbage(inspectPort);
      const rssAfter = rssMiB(pid);
      const { anonymous, keyed } = answers;

      const p99Ratio = attacked.latency.p99 / Math.max(idle.latency.p99, 1);
      const rssRatio = rssAfter / rssIdle;
      const verdict = p99Ratio <= MAX_RATIO.p99 && rssRatio <= MAX_RATIO.rss ? 'met' : 'NOT met';
      const rows = [
        rowOf('u-idle', 'ours, one account generating on an otherwise idle server', idle, server),
        rowOf(
          'u-stalled',
          `the same account while ${ANONYMOUS_UPLOADS} anonymous playground decodes (${tally(anonymous)}) and ` +
            `${KEYED_UPLOADS} free-key decodes ` +
            (`(${tally(keyed)}) each send all but the last byte of 8 MiB: p99 ${p99Ratio.toFixed(2)}× idle (≤ ` +
              `${MAX_RATIO.p99}×); RSS idle `) +
            (`${rssIdle.toFixed(0)}, peak ${peak.toFixed(0)}, ${SETTLE_SECONDS} s after ${rssServing.toFixed(0)}` +
              `, after a major GC `) +
            `${rssAfter.toFixed(0)} MiB = ${rssRatio.toFixed(2)}× idle ` +
            `(≤ ${MAX_RATIO.rss}×) — ${verdict}`,
          attacked,
          server,
        ),
      ];
      return { rows, figures: { stalledP99Ratio: p99Ratio, stalledRssRatio: rssRatio } };
    },
    { inspectPort },
  );
}

// Runs alone too: `npm run build && node dist/bench/scenarios/stalled-uploads.js`; `… attack <port> <key>` is the
// attacker.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === 'attack') await attack(Number(process.argv[3]), process.argv[4]!);
  else await stalledUploads();
}

export const stalledUploadsScenario: BenchScenario = { ids: ['u-idle', 'u-stalled'], run: stalledUploads };
