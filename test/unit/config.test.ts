// Configuration is validated once; a bad variable is refused with a message naming it.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('gives the embedded defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', dataDir: './data', redisUrl: undefined, mongodbUrl: undefined, google: undefined });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ QR_KEY_SECRET: 'short' }, 'QR_KEY_SECRET'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ GOOGLE_CLIENT_ID: 'id-only' }, 'GOOGLE_CLIENT_SECRET'],
    [{ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', PUBLIC_URL: 'https://qr.example.com' }, 'SESSION_SECRET'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' })).toMatchObject({ port: 3000, redisUrl: undefined });
  });
});
