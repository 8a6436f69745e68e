// Names people give things (codes, batch items, designs, signing keys) never carry control characters: 400 naming the
// field.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';

const t = useTestApp();

const post = (key: string, url: string, body: unknown) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

describe('a name with a control character', () => {
  it('is refused with 400 invalid_request naming the field, wherever a name is accepted', async () => {
    const { key } = await t.newCaller('business');
    const cases: Array<[string, unknown, string]> = [
      ['/api/v1/QRManager/codes', { target: 'https://example.com/a', name: 'spring\u0000sale' }, 'name'],
      ['/api/v1/QRManager/codes', { target: 'https://example.com/a', name: 'line\nbreak' }, 'name'],
      [
        '/api/v1/QRManager/batches',
        { items: [{ content: 'https://example.com/b', type: 'url', outputFormat: 'png', name: 'tab\there' }] },
        'items.0.name',
      ],
      ['/api/v1/QRManager/designs', { name: '\u001b[31mred', options: { margin: 2 } }, 'name'],
      ['/api/v1/QRManager/signing-keys', { name: 'next\u0085line' }, 'name'],
    ];
    for (const [url, body, field] of cases) {
      const res = await post(key, url, body);
      expect(res.json(), `${url} ${JSON.stringify(body)}`).toMatchObject({
        status: 400,
        code: 'invalid_request',
        errors: [expect.objectContaining({ field, detail: expect.stringContaining('control characters') })],
      });
    }
    // Other text is a name like any other: accents, emoji, zero-width joiners.
    expect(
      (await post(key, '/api/v1/QRManager/codes', { target: 'https://example.com/a', name: 'Café 👩‍💻 spring' }))
        .statusCode,
    ).toBe(201);
  });
});
