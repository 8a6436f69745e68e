// Branded designs: the error correction a logo needs, refusals that say what to change, contrast on every colour pair,
// SVG logos embedded.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';

let t: TestApp;
let key: string;
let logoId: string;
const URL = 'https://example.com/branded/design?campaign=spring';

beforeAll(async () => {
  t = await createTestApp();
  key = (await t.newCaller('pro')).key;
  logoId = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id;
});
afterAll(async () => t.close());

describe('a logo and its error correction', () => {
  it(
    'chooses the error correction a large logo needs ' + 'when the caller leaves it out, and the code decodes',
    async () => {
      const res = await generate(t.app, key, {
        content: URL,
        type: 'url',
        outputFormat: 'png',
        logo: { id: logoId, scale: 0.2 },
      });
      expect(res.statusCode).toBe(200);
      expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(URL));
    },
  );

  it(
    'refuses a logo too large for a fixed error correction with 422, naming the largest scale that fits, which ' +
      'then renders',
    async () => {
      const res = await generate(t.app, key, {
        content: URL,
        type: 'url',
        outputFormat: 'png',
        errorCorrection: 'L',
        logo: { id: logoId, scale: 0.4 },
      });
      expect(res.statusCode).toBe(422);
      const problem = res.json();
      expect(problem).toMatchObject({
        code: 'unscannable_design',
        changes: expect.arrayContaining([expect.stringContaining('logo.scale')]),
      });
      expect(problem.detail).toContain('error correction L');
      if (problem.maxLogoScale !== undefined) {
        expect(problem.maxLogoScale).toBeLessThan(0.4);
        const retry = await generate(t.app, key, {
          content: URL,
          type: 'url',
          outputFormat: 'png',
          errorCorrection: 'L',
          logo: { id: logoId, scale: problem.maxLogoScale },
        });
        expect(retry.statusCode).toBe(200);
        expect(await decodeQr(retry.rawPayload, 'png')).toEqual(readByAll(URL));
      } else {
        expect(problem.changes).toContain('remove the logo');
      }
    },
  );

  it(
    'refuses a branded design below the 2-px module minimum with 400 naming minimumSize before any scan check, ' +
      'and counts nothing',
    async () => {
      // Main's 2-px module minimum now refuses the sizes at which dots and circle finders stopped scanning (the old 422
      // case):
      // at the minimum itself this design decodes with its default margin; the scan check's own refusal is the next
      // test.
      const caller = await t.newCaller('pro');
      const design = {
        content: `https://example.com/${'a'.repeat(120)}`,
        type: 'url',
        outputFormat: 'png',
        moduleShape: 'dots',
        finderShape: 'circle',
      } as const;
      const res = await generate(t.app, caller.key, { ...design, size: 100 });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_request', minimumSize: expect.any(Number) });
      const ok = await generate(t.app, caller.key, {
        content: 'https://example.com/x',
        type: 'url',
        outputFormat: 'png',
      });
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(100_000 - 1));
    },
  );

  it(
    'refuses a design our own scan check cannot read (no quiet zone, 2-px dots and circle finders) with 422 ' +
      'naming a change that passes, counts nothing, and the design with that change renders',
    async () => {
      const caller = await t.newCaller('pro');
      const content = `https://example.com/${'a'.repeat(120)}`;
      const design = {
        content,
        type: 'url',
        outputFormat: 'png',
        errorCorrection: 'L',
        moduleShape: 'dots',
        finderShape: 'circle',
      } as const;
      // Version 7 at L is 45 modules: 90 px and margin 0 is 2 px per module, passing every input rule (size minimum,
      // contrast, logo fit).
      const res = await generate(t.app, caller.key, { ...design, size: 90, margin: 0 });
      expect(res.statusCode).toBe(422);
      // The margin of 2 cannot be drawn at 90 px and H does not read: square finders, tried next, do.
      expect(res.json()).toMatchObject({ code: 'unscannable_design', changes: ['finderShape "square"'] });
      expect(res.json().detail).toContain('does not scan');
      expect(res.json().detail).toContain('with finderShape "square" it does');
      const remaining = Number(
        (await generate(t.app, caller.key, { content: 'https://example.com/x', type: 'url', outputFormat: 'png' }))
          .headers['x-ratelimit-remaining'],
      );
      expect(remaining).toBe(100_000 - 1);
      const retry = await generate(t.app, caller.key, { ...design, finderShape: 'square', size: 90, margin: 0 });
      expect(retry.statusCode).toBe(200);
      expect(await decodeQr(retry.rawPayload, 'png')).toEqual(readByAll(content));
    },
  );

  it('answers an unknown logo id with 400 naming logo.id', async () => {
    const res = await generate(t.app, key, {
      content: URL,
      type: 'url',
      outputFormat: 'png',
      logo: { id: 'logo_doesnotexist' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'logo.id' }] });
  });
});

describe('SVG with a logo', () => {
  it(
    'embeds the logo as a data: PNG, never an external reference, and renders with rsvg-convert to a code that ' +
      'decodes',
    async () => {
      const res = await generate(t.app, key, {
        content: URL,
        type: 'url',
        outputFormat: 'svg',
        logo: { id: logoId, scale: 0.2 },
        moduleShape: 'rounded',
        frame: { text: 'SCAN ME' },
      });
      expect(res.statusCode).toBe(200);
      const svg = res.rawPayload.toString('utf8');
      expect(svg).toContain('xlink:href="data:image/png;base64,');
      expect(svg).not.toMatch(/href="(?!data:)/);
      expect(svg).not.toContain('<text'); // the caption is outlines: no font needed to view it
      expect(await decodeQr(res.rawPayload, 'svg')).toEqual(readByAll(URL));

      // The logo is really drawn: rsvg-convert's pixels at the centre carry the logo's red.
      const dir = await mkdtemp(join(tmpdir(), 'qrm-svg-logo-'));
      try {
        await writeFile(join(dir, 'code.svg'), res.rawPayload);
        await promisify(execFile)('rsvg-convert', ['-w', '512', join(dir, 'code.svg'), '-o', join(dir, 'code.png')]);
        const { default: sharp } = await import('sharp');
        const { data, info } = await sharp(join(dir, 'code.png'))
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        let red = 0;
        for (let i = 0; i < data.length; i += info.channels)
          if (data[i]! > 200 && data[i + 1]! < 100 && data[i + 2]! < 100) red++;
        expect(red).toBeGreaterThan(500);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('frame', () => {
  it('adds a caption band below the code: the PNG is taller than size by the band, and still decodes', async () => {
    const res = await generate(t.app, key, {
      content: URL,
      type: 'url',
      outputFormat: 'png',
      size: 400,
      frame: { text: 'Escaneie já', color: '#1D3557' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.readUInt32BE(16)).toBe(400);
    expect(res.rawPayload.readUInt32BE(20)).toBeGreaterThan(400);
    expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(URL));
  });

  it('refuses a caption over 24 characters or outside Latin-1', async () => {
    for (const text of ['x'.repeat(25), 'Scan me 🎉']) {
      const res = await generate(t.app, key, { content: URL, type: 'url', outputFormat: 'png', frame: { text } });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].field).toBe('frame.text');
    }
  });
});

describe('the contrast rule on every colour pair', () => {
  it.each([
    ['finderColor', { finderColor: '#EEEEEE' }],
    ['frame.color', { frame: { text: 'SCAN ME', color: '#FAFAFA' } }],
    ['darkColor', { darkColor: '#DDDDDD', moduleShape: 'dots' }],
  ])('refuses a %s too close to lightColor with 400 naming it', async (field, extra) => {
    const res = await generate(t.app, key, { content: URL, type: 'url', outputFormat: 'png', ...extra });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field }] });
  });
});

describe('plain and branded', () => {
  it('gives a branded image its own ETag, and leaves the plain image as it was', async () => {
    const plain = await generate(t.app, key, { content: URL, type: 'url', outputFormat: 'png' });
    const branded = await generate(t.app, key, {
      content: URL,
      type: 'url',
      outputFormat: 'png',
      moduleShape: 'rounded',
    });
    expect(branded.headers.etag).not.toBe(plain.headers.etag);
    expect([plain.rawPayload[24], plain.rawPayload[25]]).toEqual([1, 3]); // the 1-bit palette PNG of the fast path
    // an 8-bit palette of the anti-aliased shapes' colours
    expect([branded.rawPayload[24], branded.rawPayload[25]]).toEqual([8, 3]);
  });
});
