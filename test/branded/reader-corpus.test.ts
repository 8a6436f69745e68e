// The scan guarantee from outside: 320 plain and 220 branded requests (formats, sizes, colours, ECC, content, every branding option), each image read by ZXing, zbar and jsQR.
// One app for both (two render threads); each image rendered once; the readers run beside each other (jsQR on worker threads).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { decodeImages, READERS, type Decoded, type ImageFormat } from '../helpers/decode.js';
import { BRANDED_DESIGNS, brandedRequest, PALETTES } from '../helpers/branded-corpus.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';

let t: TestApp;
let key: string;
let logoId: string;

beforeAll(async () => {
  // Two render threads: the corpus is hundreds of renders (the branded ones scan-checked in process), and CI has two cores.
  t = await createTestApp({ env: { RENDER_THREADS: '2' } });
  key = (await t.newCaller('business')).key;
  logoId = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id;
});
afterAll(async () => t.close());

const content = fc.oneof(
  fc.webUrl({ withQueryParameters: true }).map((url) => ({ type: 'url', content: url })),
  fc
    .constantFrom('Olá, São Paulo', 'Héllo, wörld', '東京都渋谷区 2024年', 'Привет мир 😀', 'José Müller, Seán', 'ＡＢＣ ｱｲｳ café')
    .map((text) => ({ type: 'text', content: text })),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).map((text) => ({ type: 'text', content: text })),
  fc
    .record({ ssid: fc.constantFrom('Café Wi-Fi', 'home;net', 'Ñandú'), password: fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 20 }) })
    .map((fields) => ({
      type: 'wifi',
      content: { ...fields, encryption: 'WPA' },
    })),
  fc.constantFrom(['José', 'Müller'], ['Seán', 'Ó Briain'], ['Zoë', 'Ångström']).map(([firstName, lastName]) => ({
    type: 'vcard',
    content: { firstName, lastName, phone: '+34 600 000 000' },
  })),
  fc.constantFrom('Doe,John', 'Müller,José', 'Lovelace, Ada').map((name) => ({ type: 'mecard', content: { name, phone: '+441234567890' } })),
);

const plain = fc.record({
  body: content,
  outputFormat: fc.constantFrom('png', 'webp', 'svg'),
  size: fc.constantFrom(160, 240, 300, 512),
  margin: fc.constantFrom(1, 2, 4),
  errorCorrection: fc.constantFrom('L', 'M', 'Q', 'H'),
  palette: fc.constantFrom(...PALETTES),
  eci: fc.constantFrom(undefined, true),
});

const PLAIN = fc.sample(plain, { numRuns: 320, seed: 31 });

interface Case {
  request: Record<string, unknown>;
  format: ImageFormat;
}

/** Every request sent (sixteen at a time on the one app), its answer kept: the image, or the refusal. */
async function answers(cases: Case[]): Promise<Array<{ status: number; body: Buffer; json?: Record<string, unknown> }>> {
  const out: Array<{ status: number; body: Buffer; json?: Record<string, unknown> }> = [];
  for (let i = 0; i < cases.length; i += 16) {
    const slice = await Promise.all(cases.slice(i, i + 16).map((c) => generate(t.app, key, c.request)));
    for (const res of slice) out.push({ status: res.statusCode, body: res.rawPayload, ...(res.statusCode === 200 ? {} : { json: res.json() }) });
  }
  return out;
}

/** What each reader must give back: the payload the service encoded (the content, or its structured form). */
async function payloadOf(request: Record<string, unknown>): Promise<string> {
  const { encodeContent } = await import('../../src/domain/content/index.js');
  return encodeContent(request.type as never, request.content);
}

function misreads(cases: Case[], decoded: Decoded[], expected: string[], drawn: number[]) {
  return drawn.flatMap((caseIndex, i) =>
    READERS.every((reader) => decoded[i]![reader] === expected[caseIndex])
      ? []
      : [{ request: cases[caseIndex]!.request, expected: expected[caseIndex], ...decoded[i] }],
  );
}

describe('every image reads back exactly on ZXing, zbar and jsQR', () => {
  it('320 plain requests: formats, sizes, margins, colours, ECC, ECI, and text in every charset class', async () => {
    const cases: Case[] = PLAIN.map((p) => ({
      request: {
        ...p.body,
        outputFormat: p.outputFormat,
        size: p.size,
        margin: p.margin,
        errorCorrection: p.errorCorrection,
        ...p.palette,
        ...(p.eci ? { eci: true } : {}),
      },
      format: p.outputFormat as ImageFormat,
    }));
    const got = await answers(cases);
    // A refusal is only ever the documented one: content too long, or a size too small for it.
    const refused = got.flatMap((g, i) => (g.status === 200 ? [] : [{ request: cases[i]!.request, status: g.status, code: g.json?.code }]));
    expect(refused.filter((r) => r.code !== 'content_too_long' && r.code !== 'invalid_request')).toEqual([]);
    const drawn = got.flatMap((g, i) => (g.status === 200 ? [i] : []));
    expect(drawn.length).toBeGreaterThanOrEqual(300);
    const expected = await Promise.all(cases.map((c) => payloadOf(c.request)));
    const decoded = await decodeImages(drawn.map((i) => ({ bytes: got[i]!.body, format: cases[i]!.format })));
    expect(misreads(cases, decoded, expected, drawn)).toEqual([]);
  }, 240_000);

  it('220 branded requests at ECC Q/H: every module and finder shape, finder colours, logos up to 0.25, frames; fewer than 10% refused, each refusal naming a change that passes', async () => {
    const cases: Case[] = BRANDED_DESIGNS.map((b) => ({ request: brandedRequest(b, logoId), format: b.outputFormat as ImageFormat }));
    const got = await answers(cases);
    const refused = got.flatMap((g, i) => (g.status === 200 ? [] : [{ i, request: cases[i]!.request, status: g.status, problem: g.json }]));
    expect(refused.filter((r) => r.status !== 422 || r.problem?.code !== 'unscannable_design')).toEqual([]);
    expect(refused.length, JSON.stringify(refused.slice(0, 5))).toBeLessThan(cases.length * 0.1);
    // Each refusal names the scale that fits: asked again with it, the design is drawn; so is each other change it names
    // that can be made mechanically (the level raised to H, or left to be chosen for the logo).
    for (const r of refused) expect(r.problem?.maxLogoScale, JSON.stringify(r)).toBeTypeOf('number');
    const retried = refused.flatMap((r) => {
      const changes = (r.problem?.changes as string[] | undefined) ?? [];
      const smallerLogo = { request: { ...r.request, logo: { ...(r.request.logo as object), scale: r.problem!.maxLogoScale } }, format: cases[r.i]!.format };
      const { errorCorrection: _fixed, ...levelLeftOut } = r.request;
      const levelChosen = { request: levelLeftOut, format: cases[r.i]!.format };
      return changes.some((change) => change.startsWith('raise errorCorrection')) ? [smallerLogo, levelChosen] : [smallerLogo];
    });
    const retriedAnswers = await answers(retried);
    expect(retriedAnswers.map((a) => a.status)).toEqual(retried.map(() => 200));
    cases.push(...retried);
    got.push(...retriedAnswers);
    const drawn = got.flatMap((g, i) => (g.status === 200 ? [i] : []));
    const expected = cases.map((c) => c.request.content as string);
    const decoded = await decodeImages(drawn.map((i) => ({ bytes: got[i]!.body, format: cases[i]!.format })));
    expect(misreads(cases, decoded, expected, drawn)).toEqual([]);
  }, 240_000);
});
