// Every content type over HTTP, one table organised by type: each form it takes (ready string, named fields) generated
// and read back
// by ZXing, zbar and jsQR, and its bad content answered 400 invalid_content naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, generate } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

let key: string;

const t = useTestApp();
beforeAll(async () => {
  key = (await t.newCaller('business')).key;
});

const BCB_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de ' +
  'Tal6008BRASILIA62070503***63041D3D';
const RED_CROSS = 'BCD\n002\n1\nSCT\nBPOTBEB1\nRed Cross\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund';

interface ContentType {
  type: string;
  /** Each form the type accepts, with the exact payload every reader must read. */
  encodes: Array<{ form: 'ready string' | 'object of fields'; content: unknown; payload: string }>;
  /** Bad content, and the field the 400 names; none when absent. */
  refuses?: Array<{ what: string; content: unknown; field: string }>;
}

type Encoding = ContentType['encodes'][number];
const ready = (content: string, payload: string): Encoding => ({ form: 'ready string', content, payload });
const fields = (content: object, payload: string): Encoding => ({ form: 'object of fields', content, payload });

const CONTENT_TYPES: ContentType[] = [
  {
    type: 'url',
    encodes: [ready('https://example.com/a?b=c', 'https://example.com/a?b=c')],
    refuses: [{ what: 'an object (a string-only type)', content: { url: 'https://example.com' }, field: 'content' }],
  },
  {
    type: 'text',
    encodes: [ready('Plain text, ção', 'Plain text, ção')],
  },
  {
    type: 'wifi',
    encodes: [
      fields(
        { ssid: 'My;Net', password: 'pa:ss\\word,"x"', encryption: 'WPA' },
        'WIFI:T:WPA;S:My\\;Net;P:pa\\:ss\\\\word\\,\\"x\\";;',
      ),
      ready('WIFI:T:WPA;S:Cafe;P:secret123;H:true;;', 'WIFI:T:WPA;S:Cafe;P:secret123;H:true;;'),
    ],
    refuses: [{ what: 'fields without an ssid', content: { encryption: 'WPA', password: 'x' }, field: 'content.ssid' }],
  },
  {
    type: 'vcard',
    encodes: [
      {
        form: 'object of fields',
        content: { firstName: 'José', lastName: 'Ñúñez', phone: '+34 600 000 000', email: 'jose@example.com' },
        payload:
          'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Ñúñez;José;;;\r\nFN:José Ñúñez\r\nTEL:+34 600 000 ' +
          '000\r\nEMAIL:jose@example.com\r\nEND:VCARD\r\n',
      },
      ready(
        'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nEND:VCARD',
        'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nEND:VCARD',
      ),
    ],
  },
  {
    type: 'pix',
    encodes: [
      ready(BCB_EXAMPLE, BCB_EXAMPLE),
      fields({ key: '123e4567-e12b-12d1-a456-426655440000', name: 'Fulano de Tal', city: 'BRASILIA' }, BCB_EXAMPLE),
    ],
    refuses: [{ what: 'a code whose CRC is wrong', content: BCB_EXAMPLE.replace(/1D3D$/, '1D3E'), field: 'content' }],
  },
  {
    type: 'whatsapp',
    encodes: [
      fields(
        { phone: '+55 (11) 98765-4321', message: 'Olá! Quero 2 pizzas & 1 refri' },
        'https://wa.me/5511987654321?text=Ol%C3%A1!%20Quero%202%20pizzas%20%26%201%20refri',
      ),
      ready('+55 (11) 98765-4321', 'https://wa.me/5511987654321'),
    ],
  },
  {
    type: 'email',
    encodes: [
      fields(
        { to: 'sales@example.com', subject: 'Hello there', body: 'Line one\nLine two' },
        'mailto:sales@example.com?subject=Hello%20there&body=Line%20one%0D%0ALine%20two',
      ),
      ready('sales@example.com', 'mailto:sales@example.com'),
    ],
  },
  {
    type: 'sms',
    encodes: [
      fields({ phone: '+1 (555) 010-9999', message: 'Reply YES: confirm' }, 'SMSTO:+15550109999:Reply YES: confirm'),
      ready('+1 555 010 9999', 'SMSTO:+15550109999'),
    ],
  },
  {
    type: 'epc',
    encodes: [
      {
        form: 'object of fields',
        content: {
          name: 'Red Cross',
          iban: 'BE72 0000 0000 1616',
          bic: 'BPOTBEB1',
          amount: 1,
          purpose: 'CHAR',
          text: 'Urgency fund',
        },
        payload: RED_CROSS,
      },
    ],
    refuses: [
      {
        what: 'an IBAN whose checksum is wrong',
        content: { name: 'Red Cross', iban: 'BE72000000001617' },
        field: 'content.iban',
      },
    ],
  },
  {
    type: 'upi',
    encodes: [
      fields(
        { vpa: 'shop@okaxis', name: 'Corner Shop', amount: 120.5, note: 'Tea & cake' },
        'upi://pay?pa=shop@okaxis&pn=Corner%20Shop&am=120.50&cu=INR&tn=Tea%20%26%20cake',
      ),
    ],
    refuses: [{ what: 'an address without @', content: { vpa: 'nobody', name: 'X' }, field: 'content.vpa' }],
  },
  {
    type: 'geo',
    encodes: [fields({ latitude: 13.4125, longitude: 103.8667 }, 'geo:13.4125,103.8667')],
    refuses: [{ what: 'a latitude past 90', content: { latitude: 91, longitude: 0 }, field: 'content.latitude' }],
  },
  {
    type: 'tel',
    encodes: [ready('+1-201-555-0123', 'tel:+1-201-555-0123')],
    refuses: [{ what: 'a number without its country code', content: '555-0123', field: 'content' }],
  },
  {
    type: 'event',
    encodes: [
      {
        form: 'object of fields',
        content: {
          summary: 'Launch, v2',
          start: '2026-12-01T18:00:00+01:00',
          end: '2026-12-01T20:00:00+01:00',
          location: 'Hall B',
        },
        payload:
          'BEGIN:VEVENT\r\nSUMMARY:Launch\\, ' +
          'v2\r\nDTSTART:20261201T170000Z\r\nDTEND:20261201T190000Z\r\nLOCATION:Hall B\r\nEND:VEVENT\r\n',
      },
    ],
    refuses: [
      { what: 'a start that is not a date-time', content: { summary: 'x', start: 'tomorrow' }, field: 'content.start' },
    ],
  },
  {
    type: 'mecard',
    encodes: [
      fields(
        { name: 'Lovelace,Ada', phone: '+441234567890', note: 'a;b' },
        'MECARD:N:Lovelace,Ada;TEL:+441234567890;NOTE:a\\;b;;',
      ),
    ],
    refuses: [{ what: 'fields without a name', content: { phone: '+1' }, field: 'content.name' }],
  },
];

for (const { type, encodes, refuses = [] } of CONTENT_TYPES) {
  describe(`${type} over HTTP`, () => {
    for (const { form, content, payload } of encodes) {
      it(
        `encodes ${form === 'ready string' ? 'a ready string' : 'an object of fields'} so every reader reads the ` +
          `expected payload`,
        async () => {
          const res = await generate(t.app, key, { content, type, outputFormat: 'png' });
          expect(res.statusCode, res.body).toBe(200);
          expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(payload));
        },
      );
    }

    for (const { what, content, field } of refuses) {
      it(`answers 400 invalid_content for ${what}, naming ${field}`, async () => {
        const res = await generate(t.app, key, { content, type, outputFormat: 'png' });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field }] });
      });
    }
  });
}

describe('every content type', () => {
  it('is in this table: a type added to the API without a case here fails', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const types = document.paths['/api/v1/QRManager/generate'].post.requestBody.content['application/json'].schema
      .properties.type.enum as string[];
    expect(CONTENT_TYPES.map((c) => c.type).sort()).toEqual([...types].sort());
  });

  it('documents each named-field form in OpenAPI with every string field bounded', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const content =
      document.paths['/api/v1/QRManager/generate'].post.requestBody.content['application/json'].schema.properties
        .content;
    const forms = content.anyOf.flatMap((form: { anyOf?: unknown[] }) => form.anyOf ?? [form]);
    const named = (
      forms as Array<{ title?: string; properties?: Record<string, { type?: string; maxLength?: number }> }>
    ).filter((f) => /^(epc|upi|geo|event|mecard) fields$/.test(f.title ?? ''));
    expect(named).toHaveLength(5);
    for (const form of named) {
      for (const [name, property] of Object.entries(form.properties!)) {
        if (property.type === 'string') expect(property.maxLength, `${form.title} ${name}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('epc over HTTP, by its standard', () => {
  it('encodes at error correction M even when H is asked (EPC069-12)', async () => {
    const at = (errorCorrection: string) =>
      generate(t.app, key, { content: RED_CROSS, type: 'epc', outputFormat: 'png', errorCorrection });
    const [asH, asM] = [await at('H'), await at('M')];
    expect(asH.statusCode).toBe(200);
    expect(asH.rawPayload.equals(asM.rawPayload)).toBe(true);
  });
});
