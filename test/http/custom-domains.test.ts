// Custom domains and vanity slugs in the embedded default, verified by a real request to the listening server and by
// `qrm domains verify`.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { codesApi } from '../helpers/codes.js';
import {
  customDomainSuite,
  DOMAINS_URL,
  loopbackProbe,
  SERVICE_URL,
  type DomainJson,
} from '../helpers/custom-domain-suite.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { freePort, runCli } from '../helpers/processes.js';

let t: TestApp;
let port: number;
let dns: DnsServer;
const dataDir = mkdtempSync(join(tmpdir(), 'qrm-domains-'));

beforeAll(async () => {
  port = await freePort();
  dns = await startDnsServer();
  t = await createTestApp({
    dataDir,
    env: { PUBLIC_URL: SERVICE_URL, DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: 'true' },
    domainProbe: loopbackProbe(port),
  });
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
  await rm(dataDir, { recursive: true, force: true });
});

customDomainSuite('embedded', () => ({
  t,
  port,
  dns,
  async countedScans(key, codeId) {
    await t.stores.scans.flush();
    return ((await codesApi(t.app, key).stats(codeId)).json() as { totals: { scans: number } }).totals.scans;
  },
}));

describe('qrm domains (embedded)', () => {
  it('an operator activates a pending domain with qrm domains verify, and lists an account’s domains', async () => {
    const { key, accountId } = await t.newCaller('pro');
    const created = await t.app.inject({
      method: 'POST',
      url: DOMAINS_URL,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ hostname: 'Links.Operator-Vouched.example' }),
    });
    const domain = created.json() as DomainJson;
    expect(domain).toMatchObject({ hostname: 'links.operator-vouched.example', status: 'pending' });
    const verified = await runCli(['domains', 'verify', '--hostname', 'LINKS.operator-vouched.example'], {
      QR_DATA_DIR: dataDir,
    });
    expect(verified.stdout).toMatch(/^links\.operator-vouched\.example \(dom_[A-Za-z0-9_-]{20}\) is active since /);
    const listed = await runCli(['domains', 'list', '--account', accountId, '--json'], { QR_DATA_DIR: dataDir });
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { id: domain.id, hostname: 'links.operator-vouched.example', status: 'active' },
    ]);
    const read = await t.app.inject({
      method: 'GET',
      url: `${DOMAINS_URL}/${domain.id}`,
      headers: { 'x-api-key': key },
    });
    expect(read.json()).toMatchObject({ status: 'active' });
    await expect(
      runCli(['domains', 'verify', '--hostname', 'nobody.example'], { QR_DATA_DIR: dataDir }),
    ).rejects.toThrow(/no custom domain nobody\.example/);
  });
});
