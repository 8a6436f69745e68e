// All eight content types, as a ready string and as named fields, generated over HTTP and read back by ZXing, zbar and jsQR.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, generate } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

let key: string;

const t = useTestApp();
beforeAll(async () => {
  key = (await t.newCaller('business')).key;
});

const BCB_EXAMPLE = '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

const CASES: Array<{ type: string; form: string; content: unknown; payload: string }> = [
  { type: 'url', form: 'string', content: 'https://example.com/a?b=c', payload: 'https://example.com/a?b=c' },
  { type: 'text', form: 'string', content: 'Plain text, ção', payload: 'Plain text, ção' },
  {
    type: 'wifi',
    form: 'fields',
    content: { ssid: 'My;Net', password: 'pa:ss\\word,"x"', encryption: 'WPA' },
    payload: 'WIFI:T:WPA;S:My\\;Net;P:pa\\:ss\\\\word\\,\\"x\\";;',
  },
  { type: 'wifi', form: 'string', content: 'WIFI:T:WPA;S:Cafe;P:secret123;H:true;;', payload: 'WIFI:T:WPA;S:Cafe;P:secret123;H:true;;' },
  {
    type: 'vcard',
    form: 'fields',
    content: { firstName: 'José', lastName: 'Ñúñez', phone: '+34 600 000 000', email: 'jose@example.com' },
    payload: 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Ñúñez;José;;;\r\nFN:José Ñúñez\r\nTEL:+34 600 000 000\r\nEMAIL:jose@example.com\r\nEND:VCARD\r\n',
  },
  {
    type: 'vcard',
    form: 'string',
    content: 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nEND:VCARD',
    payload: 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nEND:VCARD',
  },
  { type: 'pix', form: 'string', content: BCB_EXAMPLE, payload: BCB_EXAMPLE },
  {
    type: 'pix',
    form: 'fields',
    content: { key: '123e4567-e12b-12d1-a456-426655440000', name: 'Fulano de Tal', city: 'BRASILIA' },
    payload: BCB_EXAMPLE,
  },
  {
    type: 'whatsapp',
    form: 'fields',
    content: { phone: '+55 (11) 98765-4321', message: 'Olá! Quero 2 pizzas & 1 refri' },
    payload: 'https://wa.me/5511987654321?text=Ol%C3%A1!%20Quero%202%20pizzas%20%26%201%20refri',
  },
  { type: 'whatsapp', form: 'string', content: '+55 (11) 98765-4321', payload: 'https://wa.me/5511987654321' },
  {
    type: 'email',
    form: 'fields',
    content: { to: 'sales@example.com', subject: 'Hello there', body: 'Line one\nLine two' },
    payload: 'mailto:sales@example.com?subject=Hello%20there&body=Line%20one%0D%0ALine%20two',
  },
  { type: 'email', form: 'string', content: 'sales@example.com', payload: 'mailto:sales@example.com' },
  { type: 'sms', form: 'fields', content: { phone: '+1 (555) 010-9999', message: 'Reply YES: confirm' }, payload: 'SMSTO:+15550109999:Reply YES: confirm' },
  { type: 'sms', form: 'string', content: '+1 555 010 9999', payload: 'SMSTO:+15550109999' },
];

describe('content types over HTTP', () => {
  for (const c of CASES) {
    it(`encodes ${c.type} from a ${c.form === 'string' ? 'ready string' : 'object of fields'} so both decoders read the expected payload`, async () => {
      const res = await generate(t.app, key, { content: c.content, type: c.type, outputFormat: 'png' });
      expect(res.statusCode, res.body).toBe(200);
      const decoded = await decodeQr(res.rawPayload, 'png');
      expect(decoded).toEqual(readByAll(c.payload));
    });
  }

  it('refuses a pix code whose CRC is wrong with invalid_content', async () => {
    const res = await generate(t.app, key, { content: BCB_EXAMPLE.replace(/1D3D$/, '1D3E'), type: 'pix', outputFormat: 'png' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field: 'content' }] });
  });

  it('names the failing field of an object', async () => {
    const res = await generate(t.app, key, { content: { encryption: 'WPA', password: 'x' }, type: 'wifi', outputFormat: 'png' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field: 'content.ssid' }] });
  });

  it('refuses an object for the string-only types', async () => {
    const res = await generate(t.app, key, { content: { url: 'https://example.com' }, type: 'url', outputFormat: 'png' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_content');
  });
});
