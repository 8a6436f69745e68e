// Configuration is validated once; a bad variable is refused with a message naming it.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('gives the embedded defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      redisUrl: undefined,
      mongodbUrl: undefined,
      google: undefined,
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ QR_KEY_SECRET: 'short' }, 'QR_KEY_SECRET'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ GOOGLE_CLIENT_ID: 'id-only' }, 'GOOGLE_CLIENT_SECRET'],
    [
      { GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', PUBLIC_URL: 'https://qr.example.com' },
      'SESSION_SECRET',
    ],
    [{ STRIPE_SECRET_KEY: 'sk_test_0123456789', PUBLIC_URL: 'https://qr.example.com' }, 'STRIPE_WEBHOOK_SECRET'],
    [{ STRIPE_SECRET_KEY: 'sk_test_0123456789', STRIPE_WEBHOOK_SECRET: 'whsec_0123456789' }, 'PUBLIC_URL'],
    [{ STRIPE_SECRET_KEY: 'pk_test_0123456789' }, 'STRIPE_SECRET_KEY'],
    [{ STRIPE_WEBHOOK_SECRET: 'secret' }, 'STRIPE_WEBHOOK_SECRET'],
    [{ STRIPE_API_URL: 'http://127.0.0.1:12111/v1' }, 'STRIPE_API_URL'],
    [{ RENDER_SMALL_ON_POOL: 'some' }, 'RENDER_SMALL_ON_POOL'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it(
    'configures Stripe from its three variables, pointing ' + "the library at STRIPE_API_URL (Stripe's own by default)",
    () => {
      const env = {
        STRIPE_SECRET_KEY: 'sk_test_0123456789',
        STRIPE_WEBHOOK_SECRET: 'whsec_0123456789',
        PUBLIC_URL: 'https://qr.example.com',
      };
      expect(loadConfig({}).stripe).toBeUndefined();
      expect(loadConfig(env).stripe).toEqual({
        secretKey: 'sk_test_0123456789',
        webhookSecret: 'whsec_0123456789',
        api: { protocol: 'https', host: 'api.stripe.com', port: 443 },
      });
      expect(loadConfig({ ...env, STRIPE_API_URL: 'http://127.0.0.1:12111' }).stripe?.api).toEqual({
        protocol: 'http',
        host: '127.0.0.1',
        port: 12111,
      });
    },
  );

  it.each([
    ['branded', 'branded'],
    ['true', 'all'],
    ['1', 'all'],
    ['false', 'none'],
    ['0', 'none'],
  ])('reads RENDER_SMALL_ON_POOL=%s as %s small renders on a free thread', (value, routing) => {
    expect(loadConfig({ RENDER_SMALL_ON_POOL: value }).renderSmallOnPool).toBe(routing);
    expect(loadConfig({}).renderSmallOnPool).toBeUndefined();
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' })).toMatchObject({ port: 3000, redisUrl: undefined });
  });
});
