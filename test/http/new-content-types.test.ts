// epc, upi, geo, tel, event and mecard generated over HTTP and read back exactly by zbar and ZXing; bad fields answered 400 naming them.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, generate } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

let key: string;

const t = useTestApp();
beforeAll(async () => {
  key = (await t.newCaller('business')).key;
});

const RED_CROSS = 'BCD\n002\n1\nSCT\nBPOTBEB1\nRed Cross\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund';

const CASES: Array<{ type: string; content: unknown; payload: string }> = [
  {
    type: 'epc',
    content: { name: 'Red Cross', iban: 'BE72 0000 0000 1616', bic: 'BPOTBEB1', amount: 1, purpose: 'CHAR', text: 'Urgency fund' },
    payload: RED_CROSS,
  },
  {
    type: 'upi',
    content: { vpa: 'shop@okaxis', name: 'Corner Shop', amount: 120.5, note: 'Tea & cake' },
    payload: 'upi://pay?pa=shop@okaxis&pn=Corner%20Shop&am=120.50&cu=INR&tn=Tea%20%26%20cake',
  },
  { type: 'geo', content: { latitude: 13.4125, longitude: 103.8667 }, payload: 'geo:13.4125,103.8667' },
  { type: 'tel', content: '+1-201-555-0123', payload: 'tel:+1-201-555-0123' },
  {
    type: 'event',
    content: { summary: 'Launch, v2', start: '2026-12-01T18:00:00+01:00', end: '2026-12-01T20:00:00+01:00', location: 'Hall B' },
    payload: 'BEGIN:VEVENT\r\nSUMMARY:Launch\\, v2\r\nDTSTART:20261201T170000Z\r\nDTEND:20261201T190000Z\r\nLOCATION:Hall B\r\nEND:VEVENT\r\n',
  },
  { type: 'mecard', content: { name: 'Lovelace,Ada', phone: '+441234567890', note: 'a;b' }, payload: 'MECARD:N:Lovelace,Ada;TEL:+441234567890;NOTE:a\\;b;;' },
];

describe('new content types over HTTP', () => {
  for (const c of CASES) {
    it(`encodes ${c.type} so both decoders read the expected payload`, async () => {
      const res = await generate(t.app, key, { content: c.content, type: c.type, outputFormat: 'png' });
      expect(res.statusCode, res.body).toBe(200);
      expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(c.payload));
    });
  }

  it('encodes epc at error correction M even when H is asked (EPC069-12)', async () => {
    const asH = await generate(t.app, key, { content: RED_CROSS, type: 'epc', outputFormat: 'png', errorCorrection: 'H' });
    const asM = await generate(t.app, key, { content: RED_CROSS, type: 'epc', outputFormat: 'png', errorCorrection: 'M' });
    expect(asH.statusCode).toBe(200);
    expect(asH.rawPayload.equals(asM.rawPayload)).toBe(true);
  });

  it.each([
    ['epc', { name: 'Red Cross', iban: 'BE72000000001617' }, 'content.iban'],
    ['geo', { latitude: 91, longitude: 0 }, 'content.latitude'],
    ['upi', { vpa: 'nobody', name: 'X' }, 'content.vpa'],
    ['event', { summary: 'x', start: 'tomorrow' }, 'content.start'],
    ['mecard', { phone: '+1' }, 'content.name'],
    ['tel', '555-0123', 'content'],
  ])('answers 400 invalid_content for bad %s content, naming %s', async (type, content, field) => {
    const res = await generate(t.app, key, { content, type, outputFormat: 'png' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field }] });
  });

  it('documents each named-field form in OpenAPI with every string field bounded', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const content = document.paths['/api/v1/QRManager/generate'].post.requestBody.content['application/json'].schema.properties.content;
    const forms = content.anyOf.flatMap((form: { anyOf?: unknown[] }) => form.anyOf ?? [form]);
    const named = (forms as Array<{ title?: string; properties?: Record<string, { type?: string; maxLength?: number }> }>).filter((f) =>
      /^(epc|upi|geo|event|mecard) fields$/.test(f.title ?? ''),
    );
    expect(named).toHaveLength(5);
    for (const form of named) {
      for (const [name, property] of Object.entries(form.properties!)) {
        if (property.type === 'string') expect(property.maxLength, `${form.title} ${name}`).toBeGreaterThan(0);
      }
    }
  });
});
