// Bench rows h-branded (every request a new payload) and h-branded-repeat (payloads repeated): a branded PNG (rounded
// modules and finders, a cached logo) under scenario c's load.
import sharp from 'sharp';
import { GENERATE_PATH, measureRow, wanted, type BenchScenario } from '../harness.js';
import type { Row } from '../load.js';

type HeadersFor = () => Record<string, string>;
type Scenario<Row> = (id: string, name: string, headersFor: HeadersFor, makeBody: () => string) => Promise<Row>;

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240"><circle cx="120" cy="120" r="110" fill="#e63946"/><rect x="70" y="70" width="100" height="100" fill="#1d3557"/></svg>';

/** h-branded-repeat cycles this many URLs: a site's or a menu's codes, asked for again and again. */
const REPEATED_PAYLOADS = 200;

/**
 * Uploads one logo per account (each key names its own account's logo), then drives URLs of scenario c's length
 * with the logo at scale 0.2. The logo is cached after the first request; the scan check (two decodes of the
 * image) runs for a payload not seen before until its design class has read for three payloads on that render
 * thread (shared-verdict.ts: the URLs share a version, and the logo leaves every block spare correction), then the
 * class's verdict stands: for `fresh` (unique URLs), a handful of checks per thread; for `repeat`, each of the
 * REPEATED_PAYLOADS URLs is a verdict lookup once seen.
 */
export async function brandedScenario<Row>(
  service: { server: { port: number }; keys: string[] },
  run: Scenario<Row>,
  payloads: 'fresh' | 'repeat' = 'fresh',
): Promise<Row> {
  const logo = await sharp(Buffer.from(LOGO_SVG)).png().toBuffer();
  const logoByKey = new Map<string, string>();
  for (const key of service.keys) {
    const res = await fetch(`http://127.0.0.1:${service.server.port}/api/v1/QRManager/logos`, {
      method: 'POST',
      headers: { 'content-type': 'image/png', 'x-api-key': key },
      body: new Uint8Array(logo),
    });
    // Keys of one account share its logos: a key whose account already holds one reuses it.
    if (res.status === 201) logoByKey.set(key, ((await res.json()) as { id: string }).id);
  }
  const listed = async (key: string) =>
    (
      (await (
        await fetch(`http://127.0.0.1:${service.server.port}/api/v1/QRManager/logos`, { headers: { 'x-api-key': key } })
      ).json()) as {
        items: Array<{ id: string }>;
      }
    ).items[0]!.id;
  for (const key of service.keys) if (!logoByKey.has(key)) logoByKey.set(key, await listed(key));

  let i = 0;
  let current = service.keys[0]!;
  // autocannon asks for the headers, then the body, of each request: the body names the logo of the key just chosen.
  const headersFor = () => {
    current = service.keys[i++ % service.keys.length]!;
    return { 'x-api-key': current };
  };
  let sequence = 0;
  const next = () => (payloads === 'fresh' ? ++sequence : (++sequence % REPEATED_PAYLOADS) + 1);
  const makeBody = () => {
    const n = next();
    return JSON.stringify({
      content: `https://example.com/brand/${n}-${(n * 2654435761) % 1e9}`,
      type: 'url',
      outputFormat: 'png',
      moduleShape: 'rounded',
      finderShape: 'rounded',
      finderColor: '#C1121F',
      logo: { id: logoByKey.get(current)!, scale: 0.2 },
    });
  };
  if (payloads === 'repeat')
    return run(
      'h-branded-repeat',
      `ours, branded PNG as h-branded, ${REPEATED_PAYLOADS} URLs repeated (scan verdicts cached)`,
      headersFor,
      makeBody,
    );
  return run(
    'h-branded',
    'ours, branded PNG (rounded shapes, cached logo at 0.2), unique content (a scan check until the design ' +
      'class shares its verdict)',
    headersFor,
    makeBody,
  );
}

/** Rows h-branded and h-branded-repeat, on the shared embedded service. */
export const brandedRowScenario: BenchScenario = {
  ids: ['h-branded', 'h-branded-repeat'],
  run: async (context) => {
    const embedded = await context.embedded();
    const measure: Scenario<Row> = (id, name, headersFor, makeBody) =>
      measureRow(id, name, embedded.server, GENERATE_PATH, headersFor, makeBody);
    const rows: Row[] = [];
    if (wanted('h-branded')) rows.push(await brandedScenario(embedded, measure, 'fresh'));
    if (wanted('h-branded-repeat')) rows.push(await brandedScenario(embedded, measure, 'repeat'));
    return { rows };
  },
};
