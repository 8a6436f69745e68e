// Bench scenario r: the dynamic-code redirect (GET /r/{slug}, 302, scan counted after the answer), embedded and in
// Redis mode.
import autocannon, { type AutocannonResult } from 'autocannon';
import { measuredRow, type Row } from '../load.js';
import { cpuSeconds, type Started } from '../processes.js';
import { CONNECTIONS, DURATION, WARMUP, withRedis, withService, type BenchScenario } from '../harness.js';

/** A running QR Manager with business-plan keys (bench/run.ts's ourService). */
export interface RedirectService {
  server: Started;
  keys: string[];
}

export interface RedirectBenchOptions {
  warmupSeconds: number;
  seconds: number;
  connections: number;
}

/** Phones of four kinds, so the device split and the unique-scanner counting do real work. */
const USER_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
];

/**
 * Rows r-rules and r-rules-redis: a campaign code, three rules and a UTM. The phones below hit each rule (iPhone;
 * Android with
 * pt-BR) and the fallback (desktops, which the third rule's query misses), so every scan walks the rules and gets the
 * tags.
 */
export const CAMPAIGN_FIELDS = {
  rules: [
    { if: { device: ['ios'] }, target: 'https://example.com/ios' },
    { if: { device: ['android'], language: ['pt-BR'] }, target: 'https://example.com/android-pt' },
    { if: { query: { src: 'flyer' } }, target: 'https://example.com/flyer' },
  ],
  utm: { source: 'qr', medium: 'print', campaign: 'bench' },
};

/**
 * Rows r-split and r-split-redis: the same three rules and UTM, and a 50/50 split for the scans no rule takes (the
 * desktops), so half the scans also pay for the keyed hash that places a visitor in an arm.
 */
export const SPLIT_CAMPAIGN_FIELDS = {
  ...CAMPAIGN_FIELDS,
  split: [
    { target: 'https://example.com/landing?from=qr', weight: 50 },
    { target: 'https://example.com/landing-b?from=qr', weight: 50 },
  ],
};

type Campaign = 'none' | 'rules' | 'split';
const CAMPAIGNS: Record<Campaign, object> = { none: {}, rules: CAMPAIGN_FIELDS, split: SPLIT_CAMPAIGN_FIELDS };

async function createCode(service: RedirectService, campaign: Campaign): Promise<{ id: string; slug: string }> {
  const res = await fetch(`http://127.0.0.1:${service.server.port}/api/v1/QRManager/codes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': service.keys[0]! },
    body: JSON.stringify({ target: 'https://example.com/landing?from=qr', name: 'bench', ...CAMPAIGNS[campaign] }),
  });
  if (res.status !== 201)
    throw new Error(`creating the bench's dynamic code failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; slug: string };
}

function scan(url: string, seconds: number, connections: number): Promise<AutocannonResult> {
  let i = 0;
  return autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({
          ...req,
          headers: { 'user-agent': USER_AGENTS[i++ % USER_AGENTS.length]!, 'accept-language': 'pt-BR,pt;q=0.9' },
        }),
      },
    ],
  });
}

/** Scans counted so far (embedded default: the stats read the store the redirect writes). */
async function countedScans(service: RedirectService, codeId: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${service.server.port}/api/v1/QRManager/codes/${codeId}/stats`, {
    headers: { 'x-api-key': service.keys[0]! },
  });
  return ((await res.json()) as { totals: { scans: number } }).totals.scans;
}

async function unrecordedScans(service: RedirectService): Promise<number> {
  const body = await (await fetch(`http://127.0.0.1:${service.server.port}/metrics`)).text();
  return Number(/^qrm_scans_unrecorded_total (\d+)/m.exec(body)?.[1] ?? 0);
}

/** One row: a fresh code on the service, scanned by `connections` clients; reports whether every scan was counted. */
export async function redirectScenario(
  id: string,
  name: string,
  service: RedirectService,
  options: RedirectBenchOptions,
  counted: 'stats' | 'metric',
  campaign: Campaign = 'none',
): Promise<Row> {
  const code = await createCode(service, campaign);
  const url = `http://127.0.0.1:${service.server.port}/r/${code.slug}`;
  let sent = 0;
  if (options.warmupSeconds > 0) sent += (await scan(url, options.warmupSeconds, options.connections)).requests.sent;
  // The server's CPU over the measured part: per request, a figure that holds better than req/s on a loaded machine.
  const cpuBefore = cpuSeconds(service.server.child.pid);
  const result = await scan(url, options.seconds, options.connections);
  const cpuUsed = cpuSeconds(service.server.child.pid) - cpuBefore;
  sent += result.requests.sent;
  const unexpected = result.non2xx - result['3xx'];
  const row = { ...measuredRow(id, name, result, service.server, cpuUsed), non2xx: unexpected };
  let check = `${await unrecordedScans(service)} scans unrecorded (metric), ${sent} sent`;
  if (counted === 'stats') {
    // The last scans are recorded just after their answers: give a loaded server a few seconds to catch up.
    let scans = 0;
    for (let attempt = 0; attempt < 20 && (scans = await countedScans(service, code.id)) < sent; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 250));
    check = `${scans} of ${sent} scans counted`;
  }
  console.log(
    `${id}: ${Math.round(row.rps)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, RSS ${row.rssMiB.toFixed(0)}` +
      ` MiB, unexpected ${unexpected}, errors ${row.errors}, server CPU ${row.cpuMicros?.toFixed(0)} µs/request; ${check}`,
  );
  return row;
}

const REDIRECT = { warmupSeconds: WARMUP, seconds: DURATION, connections: CONNECTIONS };

/** Row r: the redirect with counting on, embedded SQLite. */
export const redirectEmbeddedScenario: BenchScenario = {
  ids: ['r'],
  run: async () => ({
    rows: [
      await withService({}, (service) =>
        redirectScenario(
          'r',
          'ours, dynamic-code redirect (302) with scan counting, embedded SQLite',
          service,
          REDIRECT,
          'stats',
        ),
      ),
    ],
  }),
};

/** Row r-redis: the same in Redis mode. */
export const redirectRedisScenario: BenchScenario = {
  ids: ['r-redis'],
  run: async () => {
    const row = await withRedis((url) =>
      withService({ REDIS_URL: url }, (service) =>
        redirectScenario(
          'r-redis',
          'ours, dynamic-code redirect (302) with scan counting, Redis mode',
          service,
          REDIRECT,
          'metric',
        ),
      ),
    );
    return { rows: row ? [row] : [] };
  },
};

/**
 * Row r-rules: the redirect of a campaign code (three rules and a UTM, routed from the slug cache), embedded SQLite.
 */
export const redirectRulesEmbeddedScenario: BenchScenario = {
  ids: ['r-rules'],
  run: async () => ({
    rows: [
      await withService({}, (service) =>
        redirectScenario(
          'r-rules',
          'ours, redirect of a code with three rules and a UTM, counting on, embedded',
          service,
          REDIRECT,
          'stats',
          'rules',
        ),
      ),
    ],
  }),
};

/** Row r-rules-redis: the same in Redis mode. */
export const redirectRulesRedisScenario: BenchScenario = {
  ids: ['r-rules-redis'],
  run: async () => {
    const row = await withRedis((url) =>
      withService({ REDIS_URL: url }, (service) =>
        redirectScenario(
          'r-rules-redis',
          'ours, redirect of a code with three rules and a UTM, counting on, Redis mode',
          service,
          REDIRECT,
          'metric',
          'rules',
        ),
      ),
    );
    return { rows: row ? [row] : [] };
  },
};

/** Row r-split: three rules, a UTM and a weighted split for the rest, embedded SQLite. */
export const redirectSplitEmbeddedScenario: BenchScenario = {
  ids: ['r-split'],
  run: async () => ({
    rows: [
      await withService({}, (service) =>
        redirectScenario(
          'r-split',
          'ours, redirect of a code with three rules, a UTM and a 50/50 split, counting on, embedded',
          service,
          REDIRECT,
          'stats',
          'split',
        ),
      ),
    ],
  }),
};

/** Row r-split-redis: the same in Redis mode. */
export const redirectSplitRedisScenario: BenchScenario = {
  ids: ['r-split-redis'],
  run: async () => {
    const row = await withRedis((url) =>
      withService({ REDIS_URL: url }, (service) =>
        redirectScenario(
          'r-split-redis',
          'ours, redirect of a code with three rules, a UTM and a 50/50 split, counting on, Redis mode',
          service,
          REDIRECT,
          'metric',
          'split',
        ),
      ),
    );
    return { rows: row ? [row] : [] };
  },
};

/** The redirect rows in the report's order: plain, rules and split codes, each embedded then on Redis. */
export const REDIRECT_SCENARIOS: BenchScenario[] = [
  redirectEmbeddedScenario,
  redirectRedisScenario,
  redirectRulesEmbeddedScenario,
  redirectRulesRedisScenario,
  redirectSplitEmbeddedScenario,
  redirectSplitRedisScenario,
];
