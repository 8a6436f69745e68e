// Calls the dynamic-code API and the redirect through app.inject, for the suites that exercise them.
import type { FastifyInstance } from 'fastify';

export const CODES_URL = '/api/v1/QRManager/codes';

export interface CodeJson {
  id: string;
  slug: string;
  shortUrl: string;
  target: string;
  name: string | null;
  status: string;
  createdAt: string;
}

export function codesApi(app: FastifyInstance, key: string) {
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return {
    create: (body: unknown) => call('POST', CODES_URL, body),
    list: (query = '') => call('GET', `${CODES_URL}${query}`),
    get: (id: string) => call('GET', `${CODES_URL}/${id}`),
    patch: (id: string, body: unknown) => call('PATCH', `${CODES_URL}/${id}`, body),
    remove: (id: string) => call('DELETE', `${CODES_URL}/${id}`),
    image: (id: string, query = '') => call('GET', `${CODES_URL}/${id}/image${query}`),
    stats: (id: string, query = '') => call('GET', `${CODES_URL}/${id}/stats${query}`),
    /** Creates a code and returns its JSON, failing loudly otherwise. */
    async created(target: string, name?: string): Promise<CodeJson> {
      const res = await call('POST', CODES_URL, { target, ...(name === undefined ? {} : { name }) });
      if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
      return res.json() as CodeJson;
    },
  };
}

export const USER_AGENTS = {
  ios:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ' +
    'Version/17.4 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  desktop:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  // A feature phone's browser: a person, on no device class of its own (curl, or inject's own agent, is a bot).
  other: 'Mozilla/5.0 (Mobile; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5',
} as const;

/** Link previews and crawlers, as they announce themselves. */
export const BOT_AGENTS = {
  slack: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  google: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
} as const;

/**
 * A scan as a phone would make it: the short URL's path, with a device's headers and address (a person's browser unless
 * told).
 */
export function scan(
  app: FastifyInstance,
  slug: string,
  visitor: { ip?: string; userAgent?: string; language?: string; headers?: Record<string, string> } = {},
) {
  return app.inject({
    method: 'GET',
    url: `/r/${slug}`,
    remoteAddress: visitor.ip ?? '127.0.0.1',
    headers: {
      'user-agent': visitor.userAgent ?? USER_AGENTS.other,
      ...(visitor.language ? { 'accept-language': visitor.language } : {}),
      ...visitor.headers,
    },
  });
}

/**
 * 200 scans at once by 40 visitors, each scanning 5 times: ten addresses `<subnet>.0`–`.9` times the four devices of
 * USER_AGENTS (50 scans each). Scan `i` goes to `appOf(i)`, in `languageOf(i)` when given.
 */
export function scanByFortyVisitors(
  appOf: (i: number) => FastifyInstance,
  slug: string,
  subnet: string,
  languageOf?: (i: number) => string,
) {
  const devices = Object.keys(USER_AGENTS) as Array<keyof typeof USER_AGENTS>;
  return Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      scan(appOf(i), slug, {
        ip: `${subnet}.${i % 10}`,
        userAgent: USER_AGENTS[devices[Math.floor(i / 10) % 4]!],
        ...(languageOf && { language: languageOf(i) }),
      }),
    ),
  );
}
