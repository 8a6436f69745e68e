// Print formats: PDF and EPS at a physical size (read back by poppler and Ghostscript), sizeMm and dpi for rasters,
// cmyk() inks, the smallest module.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, useTestApp } from '../helpers/app.js';
import { acceptedBatchId, getAs, postBatch, waitForBatch, withArchive } from '../helpers/batches.js';
import { codesApi } from '../helpers/codes.js';
import { decodeImages, decodeQr, readByAll } from '../helpers/decode.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';
import { newSigningKey, signedUrl } from '../helpers/signed-urls.js';

const run = promisify(execFile);
const t = useTestApp();
const URL_CONTENT = 'https://example.com/print/menu?table=12';
const points = (mm: number) => (mm * 72) / 25.4;
/** POST /generate of URL_CONTENT as a URL, with these fields. */
const generateUrl = (key: string, fields: Record<string, unknown>) =>
  generate(t.app, key, { content: URL_CONTENT, type: 'url', ...fields });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qrm-print-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** pdfinfo's page size in points. */
async function pdfPageSize(pdf: Uint8Array): Promise<{ width: number; height: number }> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, pdf);
  const { stdout } = await run('pdfinfo', [file]);
  const match = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(stdout);
  return { width: Number(match![1]), height: Number(match![2]) };
}

/** Every content stream of the PDF, inflated: what a printer is told to draw. */
function pdfContent(pdf: Uint8Array): string {
  const text = Buffer.from(pdf).toString('latin1');
  const out: string[] = [];
  const opening = '>>\nstream\n';
  for (let at = text.indexOf(opening); at !== -1; at = text.indexOf(opening, at + 1)) {
    const start = at + opening.length;
    const end = text.indexOf('\nendstream', start);
    if (end === -1) break;
    try {
      out.push(inflateSync(Buffer.from(pdf).subarray(start, end)).toString('latin1'));
    } catch {
      out.push(text.slice(start, end));
    }
    at = end;
  }
  return out.join('\n');
}

function epsHeader(eps: Uint8Array): Record<string, string> {
  const lines = Buffer.from(eps).toString('latin1').split('\n').slice(0, 8);
  return Object.fromEntries(
    lines
      .filter((line) => line.startsWith('%%'))
      .map((line) => [line.slice(2, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
  );
}

describe('pdf and eps', () => {
  it('draws a PDF page of exactly sizeMm with cmyk() modules as DeviceCMYK, read exactly by every reader', async () => {
    const { key } = await t.newCaller('pro');
    const res = await generateUrl(key, { outputFormat: 'pdf', sizeMm: 40, darkColor: 'cmyk(0,0,0,100)' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const page = await pdfPageSize(res.rawPayload);
    expect(page.width).toBeCloseTo(points(40), 2);
    expect(page.height).toBeCloseTo(points(40), 2);
    const content = pdfContent(res.rawPayload);
    expect(content).toMatch(/\/DeviceCMYK cs\s+0 0 0 1 scn/);
    expect(content).not.toMatch(/\/DeviceRGB cs\s+0 0 0 scn/); // the modules are not also painted in RGB black
    expect(await decodeQr(res.rawPayload, 'pdf')).toEqual(readByAll(URL_CONTENT));
  });

  it(
    'writes an EPS whose bounding box is sizeMm, inks as setcmykcolor, read exactly by every reader through ' +
      'Ghostscript',
    async () => {
      const { key } = await t.newCaller('pro');
      const res = await generateUrl(key, {
        outputFormat: 'eps',
        sizeMm: 30,
        darkColor: 'cmyk(100, 60, 0, 40)',
        lightColor: 'cmyk(0,0,5,0)',
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/postscript');
      const header = epsHeader(res.rawPayload);
      expect(header.BoundingBox).toBe(`0 0 ${Math.ceil(points(30))} ${Math.ceil(points(30))}`);
      expect(Number(header.HiResBoundingBox!.split(' ')[2])).toBeCloseTo(points(30), 3);
      const eps = Buffer.from(res.rawPayload).toString('latin1');
      expect(eps).toContain('1 0.6 0 0.4 setcmykcolor');
      expect(eps).toContain('0 0 0.05 0 setcmykcolor');
      expect(eps).not.toContain('setrgbcolor');
      expect(await decodeQr(res.rawPayload, 'eps')).toEqual(readByAll(URL_CONTENT));
    },
  );

  it(
    'draws a branded design (shapes, logo, caption) in PDF and EPS, taller by the caption band, and both read ' +
      'exactly',
    async () => {
      const { key } = await t.newCaller('pro');
      const logo = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id as string;
      const design = {
        moduleShape: 'rounded',
        finderShape: 'circle',
        logo: { id: logo, scale: 0.2 },
        frame: { text: 'Scan the menu' },
      } as const;
      const pdf = await generateUrl(key, { outputFormat: 'pdf', sizeMm: 50, ...design });
      const eps = await generateUrl(key, { outputFormat: 'eps', sizeMm: 50, ...design });
      expect([pdf.statusCode, eps.statusCode]).toEqual([200, 200]);
      const page = await pdfPageSize(pdf.rawPayload);
      expect(page.width).toBeCloseTo(points(50), 2);
      expect(page.height).toBeGreaterThan(points(50) * 1.1); // the caption band
      // the logo is embedded, not linked
      expect(Buffer.from(pdf.rawPayload).toString('latin1')).toContain('/Subtype /Image');
      expect(Buffer.from(eps.rawPayload).toString('latin1')).toContain('/ImageType 1');
      const decoded = await decodeImages([
        { bytes: pdf.rawPayload, format: 'pdf' },
        { bytes: eps.rawPayload, format: 'eps' },
      ]);
      expect(decoded).toEqual([readByAll(URL_CONTENT), readByAll(URL_CONTENT)]);
    },
  );

  it('is a paid format: the free plan gets 403 plan_upgrade_required naming the plan that has it', async () => {
    const { key } = await t.newCaller('free');
    for (const outputFormat of ['pdf', 'eps']) {
      const res = await generateUrl(key, { outputFormat });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'plan_upgrade_required', plan: 'free', requiredPlan: 'pro' });
    }
  });
});

describe('sizeMm and dpi', () => {
  it('gives a PNG and a WebP sizeMm × dpi pixels with the dpi written in the file (pHYs, EXIF)', async () => {
    const { key } = await t.newCaller('free');
    const png = await generateUrl(key, { outputFormat: 'png', sizeMm: 25, dpi: 600 });
    const webp = await generateUrl(key, { outputFormat: 'webp', sizeMm: 25, dpi: 600 });
    expect([png.statusCode, webp.statusCode]).toEqual([200, 200]);
    const pngMeta = await sharp(png.rawPayload).metadata();
    expect([pngMeta.width, pngMeta.density]).toEqual([Math.round((25 / 25.4) * 600), 600]);
    const webpMeta = await sharp(webp.rawPayload).metadata();
    expect(webpMeta.width).toBe(591);
    // EXIF IFD0: XResolution is the rational at offset 50 (dpi / 1), ResolutionUnit 2 (inch).
    expect([webpMeta.exif!.readUInt32LE(50), webpMeta.exif!.readUInt32LE(54)]).toEqual([600, 1]);
    // A branded WebP (sharp's encoder) and PNG (the design writer) carry it too.
    const brandedWebp = await generateUrl(key, { outputFormat: 'webp', sizeMm: 25, dpi: 600, moduleShape: 'rounded' });
    const brandedPng = await generateUrl(key, { outputFormat: 'png', sizeMm: 25, dpi: 600, moduleShape: 'rounded' });
    expect((await sharp(brandedWebp.rawPayload).metadata()).exif!.readUInt32LE(50)).toBe(600);
    expect((await sharp(brandedPng.rawPayload).metadata()).density).toBe(600);
    const decoded = await decodeImages([
      { bytes: png.rawPayload, format: 'png' },
      { bytes: webp.rawPayload, format: 'webp' },
      { bytes: brandedWebp.rawPayload, format: 'webp' },
    ]);
    expect(decoded).toEqual([readByAll(URL_CONTENT), readByAll(URL_CONTENT), readByAll(URL_CONTENT)]);
  });

  it(
    'writes only the resolution when dpi comes without ' + 'sizeMm, and the default 300 dpi with sizeMm alone',
    async () => {
      const { key } = await t.newCaller('free');
      const onlyDpi = await generateUrl(key, { outputFormat: 'png', size: 400, dpi: 150 });
      expect(await sharp(onlyDpi.rawPayload).metadata()).toMatchObject({ width: 400, density: 150 });
      const onlyMm = await generateUrl(key, { outputFormat: 'png', sizeMm: 30 });
      expect(await sharp(onlyMm.rawPayload).metadata()).toMatchObject({ width: 354, density: 300 });
    },
  );

  it('sizes an SVG in millimetres', async () => {
    const { key } = await t.newCaller('pro');
    const res = await generateUrl(key, { outputFormat: 'svg', sizeMm: 32.5 });
    expect(res.body).toMatch(/^<svg [^>]*width="32\.5mm" height="32\.5mm"/);
    expect(await decodeQr(res.rawPayload, 'svg')).toEqual(readByAll(URL_CONTENT));
  });

  it('refuses a size whose modules print under the minimum, naming a sizeMm that then works', async () => {
    const { key } = await t.newCaller('pro');
    const long = `https://example.com/${'a'.repeat(300)}`;
    const small = await generate(t.app, key, { content: long, type: 'url', outputFormat: 'pdf', sizeMm: 15 });
    expect(small.statusCode).toBe(400);
    const minimumSizeMm = small.json().minimumSizeMm as number;
    expect(small.json()).toMatchObject({ code: 'invalid_request', minModuleMm: 0.3, errors: [{ field: 'sizeMm' }] });
    expect(minimumSizeMm).toBeGreaterThan(15);
    const below = await generate(t.app, key, {
      content: long,
      type: 'url',
      outputFormat: 'pdf',
      sizeMm: minimumSizeMm - 0.1,
    });
    expect(below.statusCode).toBe(400);
    const fits = await generate(t.app, key, { content: long, type: 'url', outputFormat: 'pdf', sizeMm: minimumSizeMm });
    expect(fits.statusCode).toBe(200);
    expect(await decodeQr(fits.rawPayload, 'pdf')).toEqual(readByAll(long));
    // A raster also needs two whole pixels a module at its dpi.
    const raster = await generate(t.app, key, { content: long, type: 'url', outputFormat: 'png', sizeMm: 30, dpi: 72 });
    expect(raster.statusCode).toBe(400);
    const rasterFits = await generate(t.app, key, {
      content: long,
      type: 'url',
      outputFormat: 'png',
      sizeMm: raster.json().minimumSizeMm,
      dpi: 72,
    });
    expect(rasterFits.statusCode).toBe(200);
  });

  it('refuses what it would otherwise ignore or misdraw, each with the field named', async () => {
    const { key } = await t.newCaller('pro');
    const body = { content: URL_CONTENT, type: 'url' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ outputFormat: 'png', darkColor: 'cmyk(0,0,0,100)' }, 'darkColor'],
      [{ outputFormat: 'svg', lightColor: 'cmyk(0,0,0,0)' }, 'lightColor'],
      [{ outputFormat: 'pdf', size: 300, sizeMm: 30 }, 'sizeMm'],
      [{ outputFormat: 'pdf', sizeMm: 30, dpi: 300 }, 'dpi'],
      [{ outputFormat: 'png', sizeMm: 500, dpi: 300 }, 'sizeMm'],
      [{ outputFormat: 'eps', darkColor: '#00000080' }, 'darkColor'],
      [{ outputFormat: 'pdf', darkColor: 'cmyk(0,0,0,120)' }, 'darkColor'],
      // The contrast rule on the RGB equivalent: 10% black on white is too faint.
      [{ outputFormat: 'pdf', darkColor: 'cmyk(0,0,0,10)' }, 'darkColor'],
    ];
    for (const [fields, field] of cases) {
      const res = await generate(t.app, key, { ...body, ...fields });
      expect({ fields, status: res.statusCode, code: res.json().code, field: res.json().errors?.[0]?.field }).toEqual({
        fields,
        status: 400,
        code: 'invalid_request',
        field,
      });
    }
    expect(
      (await generate(t.app, key, { ...body, outputFormat: 'png', sizeMm: 500, dpi: 300 })).json().maximumSizeMm,
    ).toBe(173.3);
  });
});

describe('everywhere a format is accepted', () => {
  it(
    'a signed URL /i/{keyId}/pdf, a dynamic code image, a design with sizeMm and a batch (JSON and CSV) give the ' +
      'same PDF and EPS',
    async () => {
      const { key } = await t.newCaller('pro');
      const fields = { sizeMm: 35, darkColor: 'cmyk(0,0,0,100)' };
      const inline = await generateUrl(key, { outputFormat: 'pdf', ...fields });
      expect(inline.statusCode).toBe(200);

      const signing = await newSigningKey(t.app, key);
      const signed = await t.app.inject({
        method: 'GET',
        url: signedUrl(signing, 'pdf', { content: URL_CONTENT, type: 'url', ...fields }),
      });
      expect(signed.statusCode).toBe(200);
      expect(signed.headers['content-type']).toBe('application/pdf');
      expect(signed.rawPayload.equals(inline.rawPayload)).toBe(true);

      const design = await t.app.inject({
        method: 'POST',
        url: '/api/v1/QRManager/designs',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: { name: 'print', options: fields },
      });
      expect(design.statusCode).toBe(201);
      const viaDesign = await generateUrl(key, { outputFormat: 'pdf', design: design.json().id });
      expect(viaDesign.rawPayload.equals(inline.rawPayload)).toBe(true);

      const code = (await codesApi(t.app, key).create({ target: 'https://example.com/target' })).json();
      const codeImage = await t.app.inject({
        method: 'GET',
        url:
          `/api/v1/QRManager/codes/${code.id}/image?outputFormat=eps&sizeMm=35&darkColor=` +
          `${encodeURIComponent('cmyk(0,0,0,100)')}`,
        headers: { 'x-api-key': key },
      });
      expect(codeImage.statusCode).toBe(200);
      expect(codeImage.headers['content-type']).toBe('application/postscript');
      expect(epsHeader(codeImage.rawPayload).BoundingBox).toBe(`0 0 ${Math.ceil(points(35))} ${Math.ceil(points(35))}`);

      const json = await postBatch(t.app, key, {
        items: [
          { content: URL_CONTENT, type: 'url', outputFormat: 'pdf', name: 'menu', ...fields },
          { content: URL_CONTENT, type: 'url', outputFormat: 'eps', name: 'menu', ...fields },
        ],
      });
      const csvBody =
        'content,type,outputFormat,sizeMm,darkColor,name\n' + `${URL_CONTENT},url,pdf,35,"cmyk(0,0,0,100)",menu\n`;
      const csv = await postBatch(t.app, key, csvBody, { 'content-type': 'text/csv' });
      const files: Record<string, Buffer> = {};
      for (const [label, accepted] of [
        ['json', json],
        ['csv', csv],
      ] as const) {
        const batchId = acceptedBatchId(accepted);
        await waitForBatch(getAs(t.app, key), batchId);
        await withArchive(getAs(t.app, key), batchId, async (archive) => {
          for (const name of archive.files.filter((file) => file !== 'manifest.csv'))
            files[`${label}/${name}`] = await readFile(join(archive.dir, name));
        });
      }
      expect(Object.keys(files).sort()).toEqual(['csv/menu.pdf', 'json/menu.eps', 'json/menu.pdf']);
      expect(files['json/menu.pdf']!.equals(inline.rawPayload)).toBe(true);
      expect(files['csv/menu.pdf']!.equals(inline.rawPayload)).toBe(true);
      expect(await decodeQr(files['json/menu.eps']!, 'eps')).toEqual(readByAll(URL_CONTENT));
    },
    60_000,
  );
});
