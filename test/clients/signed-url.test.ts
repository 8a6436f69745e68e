// The SDKs' signedImageUrl helpers: the worked example of docs/signed-urls.md, offline, and URLs the service answers
// with the image.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { signedImageUrl } from '../../clients/typescript/src/index.js';
import { signedImagePath } from '../../src/domain/signed-url.js';
import { useTestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { DOCS_EXAMPLE, newSigningKey } from '../helpers/signed-urls.js';

const run = promisify(execFile);
const { key: KEY, params: PARAMS } = DOCS_EXAMPLE;
const t = useTestApp();

async function pythonSignedUrl(
  keyId: string,
  secret: string,
  params: Record<string, string | number>,
  expires?: number,
): Promise<string> {
  const script = [
    'import json, sys',
    "sys.path.insert(0, 'clients/python')",
    'from qr_manager import signed_image_url',
    'a = json.loads(sys.argv[1])',
    "print(signed_image_url(a['base'], a['keyId'], a['secret'], 'png', a['params'], expires=a.get('expires')))",
  ].join('\n');
  const { stdout } = await run('python3', [
    '-c',
    script,
    JSON.stringify({ base: 'https://qr.example.com', keyId, secret, params, expires }),
  ]);
  return stdout.trim();
}

it('TypeScript and Python give the docs’ worked example, offline', async () => {
  const expected = `https://qr.example.com${signedImagePath(KEY.id, KEY.secret, 'png', { ...PARAMS, exp: 1893456000 })}`;
  expect(expected).toContain('&sig=8EF36EEW2sZiO4nszx2ZxfNreHiWtin72YOyDRMkDbE');
  const typescript = signedImageUrl({
    baseUrl: 'https://qr.example.com/',
    keyId: KEY.id,
    secret: KEY.secret,
    format: 'png',
    params: PARAMS,
    expires: new Date(1893456000_000),
  });
  expect(typescript).toBe(expected);
  expect(await pythonSignedUrl(KEY.id, KEY.secret, PARAMS, 1893456000)).toBe(expected);
});

it('the service answers both helpers’ URLs with the image, non-ASCII content included', async () => {
  const { key } = await t.newCaller('free');
  const signing = await newSigningKey(t.app, key);
  const params = { type: 'text', content: 'Grüße, 東京 & co.', size: 256 };
  for (const url of [
    signedImageUrl({ baseUrl: 'http://localhost', keyId: signing.id, secret: signing.secret, format: 'png', params }),
    await pythonSignedUrl(signing.id, signing.secret, params),
  ]) {
    const res = await t.app.inject({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, '') });
    expect(res.statusCode, url).toBe(200);
    expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(params.content));
  }
});
