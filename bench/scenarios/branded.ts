// Bench row h-branded: a branded PNG (rounded modules and finders, a cached logo) under the same load as scenario c.
import sharp from 'sharp';
import { GENERATE_PATH, measureRow, type BenchScenario } from '../harness.js';

type HeadersFor = () => Record<string, string>;
type Scenario<Row> = (id: string, name: string, headersFor: HeadersFor, makeBody: () => string) => Promise<Row>;

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240"><circle cx="120" cy="120" r="110" fill="#e63946"/><rect x="70" y="70" width="100" height="100" fill="#1d3557"/></svg>';

/**
 * Uploads one logo per account (each key names its own account's logo), then drives unique URLs of
 * scenario c's length with the logo at scale 0.2: after the first request per design the logo is
 * cached and the scan verdict known, which is the case the 3× target is about.
 */
export async function brandedScenario<Row>(service: { server: { port: number }; keys: string[] }, run: Scenario<Row>): Promise<Row> {
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
      (await (await fetch(`http://127.0.0.1:${service.server.port}/api/v1/QRManager/logos`, { headers: { 'x-api-key': key } })).json()) as {
        logos: Array<{ id: string }>;
      }
    ).logos[0]!.id;
  for (const key of service.keys) if (!logoByKey.has(key)) logoByKey.set(key, await listed(key));

  let i = 0;
  let current = service.keys[0]!;
  // autocannon asks for the headers, then the body, of each request: the body names the logo of the key just chosen.
  const headersFor = () => {
    current = service.keys[i++ % service.keys.length]!;
    return { 'x-api-key': current };
  };
  let sequence = 0;
  const makeBody = () =>
    JSON.stringify({
      content: `https://example.com/brand/${++sequence}-${(sequence * 2654435761) % 1e9}`,
      type: 'url',
      outputFormat: 'png',
      moduleShape: 'rounded',
      finderShape: 'rounded',
      finderColor: '#C1121F',
      logo: { id: logoByKey.get(current)!, scale: 0.2 },
    });
  return run('h-branded', 'ours, branded PNG (rounded shapes, cached logo at 0.2), unique content', headersFor, makeBody);
}

/** Row h-branded, on the shared embedded service. */
export const brandedRowScenario: BenchScenario = {
  ids: ['h-branded'],
  run: async (context) => {
    const embedded = await context.embedded();
    return {
      rows: [await brandedScenario(embedded, (id, name, headersFor, makeBody) => measureRow(id, name, embedded.server, GENERATE_PATH, headersFor, makeBody))],
    };
  },
};
