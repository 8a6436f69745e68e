// The shipped docker-compose.yml does not publish /metrics unprotected: the API service requires METRICS_TOKEN.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';

const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8')) as {
  services: Record<string, { environment?: Record<string, string>; ports?: string[] }>;
};

describe('docker-compose.yml', () => {
  it('publishes the API port, so /metrics is reachable from outside the host', () => {
    expect(compose.services.api?.ports?.length).toBeGreaterThan(0);
  });

  it('requires METRICS_TOKEN for the API service (compose refuses to start without it)', () => {
    // `${VAR:?message}` makes `docker compose up` fail with the message when VAR is unset or empty.
    expect(compose.services.api?.environment?.METRICS_TOKEN).toMatch(/^\$\{METRICS_TOKEN:\?[^}]+\}$/);
  });

  it('the token it passes is one the server accepts only at 16 characters or more', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ METRICS_TOKEN: 'a'.repeat(16) }).metricsToken).toBe('a'.repeat(16));
  });
});
