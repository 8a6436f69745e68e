// The portal's Batches page: a CSV upload becomes a batch with a progress bar, the archive downloads, a running batch
// cancels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function signedIn(): Promise<PortalClient> {
  const client = new PortalClient(t.app);
  await client.signInLocally(`batches-${Date.now()}-${Math.random()}@example.com`);
  return client;
}

describe('Batches page', () => {
  it('uploads a CSV, shows its progress, then offers the ZIP', async () => {
    const client = await signedIn();
    const csv = [
      'content,type,outputFormat,name',
      ...Array.from({ length: 3 }, (_, i) => `https://example.com/portal/${i},url,png,label-${i}`),
    ].join('\n');
    const posted = await client.postForm('/portal/batches', { csv, _csrf: await client.csrfFrom('/portal/batches') });
    expect(posted.statusCode).toBe(303);

    const html = await waitFor('the finished batch offering its ZIP', async () => {
      const page = (await client.get('/portal/batches')).body;
      return page.includes('Download ZIP') && page;
    });
    expect(html).toMatch(/<progress max="3" value="3"/);
    expect(html).not.toContain('http-equiv="refresh"');
    expect(html).toMatch(/whsec_[A-Za-z0-9+/]{43}=/);
    const href = /href="(\/portal\/batches\/bat_[^"]+\/archive)"/.exec(html)![1]!;
    const zip = await client.get(href);
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.rawPayload.subarray(0, 4).toString('hex')).toBe('504b0304');
  });

  it('lists every bad line of a refused upload and keeps what was pasted', async () => {
    const client = await signedIn();
    const csv = 'content,type,outputFormat\nhttps://example.com/a,url,png\nhello,fax,png\n';
    const res = await client.postForm('/portal/batches', { csv, _csrf: await client.csrfFrom('/portal/batches') });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('line 3.type');
    expect(res.body).toContain('hello,fax,png');
  });

  it(
    'cancels a running batch; while one runs it is polled ' + 'by the script, and a browser without script refreshes',
    async () => {
      const client = await signedIn();
      // Local sign-in makes a free account (5 QRs a month): one code, rendered large, 80 times.
      const csv = [
        'content,type,outputFormat,size,name',
        ...Array.from({ length: 80 }, (_, i) => `https://example.com/slow,url,png,2048,copy-${i}`),
      ].join('\n');
      await client.postForm('/portal/batches', { csv, _csrf: await client.csrfFrom('/portal/batches') });
      const html = (await client.get('/portal/batches')).body;
      expect(html).toMatch(/<noscript><meta http-equiv="refresh" content="\d+"><\/noscript>/);
      expect(html).toMatch(/<table class="batches" data-progress-url="\/portal\/api\/batch-progress">/);
      expect(html).toMatch(/<tr data-batch="bat_[^"]+" data-running>/);
      const action = /action="(\/portal\/batches\/bat_[^"]+\/cancel)"/.exec(html)![1]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
      expect((await client.postForm(action, { _csrf: csrf })).statusCode).toBe(303);
      expect((await client.get('/portal/batches')).body).toContain('>cancelled<');
    },
  );
});
