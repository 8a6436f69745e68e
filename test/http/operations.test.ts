// What operators and integrators rely on: the OpenAPI document, readiness, metrics, logs without secrets, load
// shedding.
import { readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/domain/errors.js';
import { GENERATE_ERRORS } from '../../src/http/api/v1/generate.route.js';
import { ProblemSchema } from '../../src/http/openapi/problem.schema.js';
import { revokeKey } from '../../src/services/api-keys.js';
import { createTestApp, useTestApp, generate } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';
import { waitFor } from '../helpers/wait.js';

const t = useTestApp({ env: { LOG_LEVEL: 'trace' } });

type Operation = {
  operationId?: string;
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
};

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const document = res.json();
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('documents the generation endpoint: body schema, image responses and every problem it can answer', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op: Operation = document.paths['/api/v1/QRManager/generate'].post;
    expect(op.operationId).toBe('generateQr');
    expect(Object.keys(op.responses['200']!.content!)).toEqual([
      'image/png',
      'image/webp',
      'image/svg+xml',
      'application/pdf',
      'application/postscript',
    ]);
    for (const code of GENERATE_ERRORS) {
      const response = op.responses[String(errorStatus(code))];
      expect(response, code).toBeDefined();
      expect(response!.description).toContain(`\`${code}\``);
      expect(Object.keys(response!.content!)).toEqual(['application/problem+json']);
    }
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
  });

  it("tells where a key comes from: the portal's Keys page, and qrm's command as the README prints it", async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const description: string = document.components.securitySchemes.apiKey.description;
    const missingKey = (await generate(t.app, undefined, { content: 'x', type: 'text', outputFormat: 'png' })).json();
    const readme = readFileSync('README.md', 'utf8');
    for (const text of [description, missingKey.detail as string]) {
      const page = /\/portal\/[a-z]+/.exec(text)?.[0];
      expect(page, text).toBe('/portal/keys');
      const command = /npm run --silent qrm -- keys create --email /.exec(text)?.[0];
      expect(command, text).toBeDefined();
      expect(readme).toContain(command);
    }
    const client = new PortalClient(t.app);
    await client.signInLocally(`keys-page-${Date.now()}@example.com`);
    const page = await client.get('/portal/keys');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>API keys</h1>');
  });

  it('answers errors that match the documented Problem schema', async () => {
    const caller = await t.newCaller('free');
    const answers = await Promise.all([
      generate(t.app, undefined, { content: 'x', type: 'text', outputFormat: 'png' }),
      generate(t.app, caller.key, { content: 'x', type: 'nope', outputFormat: 'png' }),
      generate(t.app, caller.key, { content: 'x', type: 'text', outputFormat: 'svg' }),
      generate(t.app, caller.key, { content: 'y'.repeat(2400), type: 'text', outputFormat: 'png' }),
    ]);
    // Each the refusal it is, with the status its code is documented with: a 500 problem document would not pass.
    expect(answers.map((res) => [res.statusCode, res.json().code])).toEqual([
      [401, 'missing_api_key'],
      [400, 'unsupported_type'],
      [403, 'plan_upgrade_required'],
      [422, 'content_too_long'],
    ]);
    for (const res of answers) {
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(() => ProblemSchema.parse(res.json())).not.toThrow();
      expect(res.json().status).toBe(res.statusCode);
    }
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger-ui');
  });
});

describe('/healthz and /readyz', () => {
  it('report alive and ready with each dependency named', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    // A cold render thread may take a moment to start on a busy machine: readiness is what it reports once it has.
    const ready = await waitFor(
      'the instance to be ready',
      async () => {
        const res = await t.app.inject({ method: 'GET', url: '/readyz' });
        return res.statusCode === 200 && res;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(ready.json()).toEqual({ status: 'ready', checks: { sqlite: 'ok', renderer: 'ok' } });
  });

  it('turns /readyz into a 503 naming the store when the store is down, while /healthz stays up', async () => {
    const down = await createTestApp();
    try {
      // Ready first: the render pool's thread is up and warm, so the only thing the store's closing can take down is
      // the store.
      await waitFor(
        'the new instance to be ready',
        async () => (await down.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200,
        {
          timeoutMs: 15_000,
          intervalMs: 100,
        },
      );
      await down.stores.close();
      const res = await down.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({
        code: 'unavailable',
        checks: { sqlite: expect.stringMatching(/^failed: /), renderer: 'ok' },
      });
      expect(res.json().detail).toContain('sqlite');
      expect((await down.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await down.app.close();
    }
  });
});

function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => l.startsWith(name) && !l.startsWith('#') && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('/metrics', () => {
  it('moves request, render and quota-rejection series as requests are served', async () => {
    const scrape = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const labels = { route: '/api/v1/QRManager/generate', status: '200', type: 'url', format: 'webp' };
    const before = await scrape();
    const caller = await t.newCaller('free');
    for (let i = 0; i < 3; i++)
      await generate(t.app, caller.key, { content: `https://example.com/m${i}`, type: 'url', outputFormat: 'webp' });
    for (let i = 3; i < 6; i++)
      await generate(t.app, caller.key, { content: `https://example.com/m${i}`, type: 'url', outputFormat: 'webp' });
    const after = await scrape();
    expect(
      metricValue(after, 'qrm_http_requests_total', labels) - metricValue(before, 'qrm_http_requests_total', labels),
    ).toBe(5);
    expect(
      metricValue(after, 'qrm_render_duration_seconds_count', { format: 'webp', outcome: 'ok' }) -
        metricValue(before, 'qrm_render_duration_seconds_count', { format: 'webp', outcome: 'ok' }),
    ).toBe(5);
    expect(
      metricValue(after, 'qrm_quota_rejections_total', { reason: 'qr_quota_exceeded' }) -
        metricValue(before, 'qrm_quota_rejections_total', { reason: 'qr_quota_exceeded' }),
    ).toBe(1);
    expect(after).toContain('qrm_render_pool_threads 1');
    // Nothing is rendering between requests: the admission gate holds no work.
    expect(after).toContain('qrm_render_admission_units{state="running"} 0');
    expect(after).toContain('qrm_render_admission_units{state="queued"} 0');
    expect(after).toContain('qrm_render_pool_queue_depth');
    expect(after).toContain('process_resident_memory_bytes');
  });

  it('keeps label values to known lists, so junk input cannot create new series', async () => {
    const caller = await t.newCaller('free');
    await generate(t.app, caller.key, { content: 'x', type: 'evil"label', outputFormat: 'png' });
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).not.toContain('evil');
    expect(text).toMatch(/qrm_http_requests_total\{[^}]*status="400",type="other",format="png"\}/);
  });

  it('wants a bearer token when METRICS_TOKEN is set', async () => {
    const guarded = await createTestApp({ env: { METRICS_TOKEN: 'a-long-metrics-token' } });
    try {
      expect((await guarded.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      const ok = await guarded.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer a-long-metrics-token' },
      });
      expect(ok.statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('logs', () => {
  it(
    'write one line per request with id, account, type, ' + 'format, status and duration — and never the API key',
    async () => {
      const caller = await t.newCaller('free');
      const typo = caller.key.slice(0, -1) + (caller.key.endsWith('x') ? 'y' : 'x');
      t.logs.length = 0;
      await generate(t.app, caller.key, { content: 'https://example.com/log', type: 'url', outputFormat: 'png' });
      await generate(t.app, typo, { content: 'https://example.com/log', type: 'url', outputFormat: 'png' });
      await generate(t.app, caller.key, { content: caller.key, type: 'nope', outputFormat: 'png' });
      await revokeKey({ ...t.stores, keyPepper: undefined, clock: () => new Date() }, caller.accountId, caller.keyId);
      await generate(t.app, caller.key, { content: 'https://example.com/log', type: 'url', outputFormat: 'png' });
      const lines = t.logs
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const completed = lines.filter((l) => l.msg === 'request completed');
      expect(completed).toHaveLength(4);
      expect(completed[0]).toMatchObject({
        accountId: caller.accountId,
        type: 'url',
        format: 'png',
        status: 200,
        route: '/api/v1/QRManager/generate',
      });
      expect(typeof completed[0]!.reqId).toBe('string');
      expect(typeof completed[0]!.durationMs).toBe('number');
      expect(completed.map((l) => l.status)).toEqual([200, 401, 400, 401]);
      const all = t.logs.join('');
      expect(all).not.toContain(caller.key);
      expect(all).not.toContain(typo);
      expect(all).not.toContain(caller.key.slice(9, 30));
    },
  );
});

describe('load shedding', () => {
  it('answers 503 overloaded with Retry-After when memory is over the limit', async () => {
    const squeezed = await createTestApp({ env: { MAX_HEAP_USED_MB: '1' } });
    try {
      const caller = await squeezed.newCaller('free');
      // under-pressure samples once a second; wait for the first sample to see the heap over 1 MB.
      const res = await waitFor(
        'a generate shed with 503',
        async () => {
          const answer = await generate(squeezed.app, caller.key, { content: 'x', type: 'text', outputFormat: 'png' });
          return answer.statusCode === 503 && answer;
        },
        { timeoutMs: 5_000, intervalMs: 200 },
      );
      expect(res.json().code).toBe('overloaded');
      expect(res.headers['retry-after']).toBe('2');
      // Liveness is never shed; readiness reports the overload.
      const live = await squeezed.app.inject({ method: 'GET', url: '/healthz' });
      expect(live.statusCode, live.body).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });
      const ready = await squeezed.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().code).toBe('overloaded');
      // The shed request ended at its 503: it never reached its route, which would have answered a second time.
      await new Promise((r) => setImmediate(r));
      expect(squeezed.doubleReplies).toEqual([]);
    } finally {
      await squeezed.close();
    }
  });
});
