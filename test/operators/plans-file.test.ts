// The plans file: what a valid file builds, and how each kind of mistake is named (file, plan, field).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { FEATURE_DEFAULTS, PlanCatalogue } from '../../src/domain/plan-catalogue.js';
import { loadPlanCatalogue, parsePlansFile } from '../../src/plans-file.js';
import { teamPlan } from '../helpers/plan-files.js';
import { useTempDir } from '../helpers/temp-dir.js';

const FILE = '/etc/qrm/plans.json';

const plan = teamPlan;

const parse = (file: unknown) => parsePlansFile(JSON.stringify(file), FILE);
const mistake = (file: unknown) => {
  try {
    parse(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
};

describe('a plans file', () => {
  it('builds the catalogue it describes, null meaning unlimited, in the file order, with its default plan', () => {
    const catalogue = parse({
      plans: [
        plan(),
        plan({ id: 'paid', name: 'Paid', monthlyPriceUsd: 5, requestsPerMonth: 1000, burstPerSecond: 20 }),
      ],
      default: 'team',
    });
    expect(catalogue.plans.map((p) => p.id)).toEqual(['team', 'paid']);
    expect(catalogue.defaultPlan.id).toBe('team');
    expect(catalogue.get('team')).toMatchObject({ requestsPerMonth: null, qrsPerMonth: null, burstPerSecond: null });
    expect(catalogue.get('paid')).toMatchObject({ requestsPerMonth: 1000, qrsPerMonth: null, burstPerSecond: 20 });
    expect(catalogue.has('free')).toBe(false);
  });

  it('gives absent feature figures their documented defaults, and keeps the ones it sets (null too)', () => {
    const catalogue = parse({
      plans: [
        plan({ id: 'pro' }),
        plan({ id: 'gratis' }),
        plan({ id: 'premium', monthlyPriceUsd: 9 }),
        plan({ id: 'custom', activeDynamicCodes: 7, logos: null }),
      ],
      default: 'gratis',
    });
    expect(catalogue.get('pro')).toMatchObject(FEATURE_DEFAULTS.pro);
    expect(catalogue.get('gratis')).toMatchObject(FEATURE_DEFAULTS.free);
    expect(catalogue.get('premium')).toMatchObject(FEATURE_DEFAULTS.pro);
    expect(catalogue.get('custom')).toMatchObject({ ...FEATURE_DEFAULTS.free, activeDynamicCodes: 7, logos: null });
  });

  it('names the file, the plan and the field of an unknown format', () => {
    const message = mistake({ plans: [plan(), plan({ id: 'pro', formats: ['png', 'gif'] })], default: 'team' });
    expect(message).toContain(`QR_PLANS_FILE ${FILE}`);
    expect(message).toContain('plans[1] (plan "pro").formats[1]');
    expect(message).toContain('unknown format "gif"');
  });

  it('names a misspelt field, a wrong type, a duplicate plan and a default that is not defined', () => {
    expect(mistake({ plans: [plan({ requestPerMonth: 5 })], default: 'team' })).toMatch(
      /plans\[0\] \(plan "team"\).*requestPerMonth/,
    );
    expect(mistake({ plans: [plan({ burstPerSecond: '10' })], default: 'team' })).toContain(
      'plans[0] (plan "team").burstPerSecond',
    );
    expect(mistake({ plans: [plan({ requestsPerMonth: undefined })], default: 'team' })).toContain(
      'plans[0] (plan "team").requestsPerMonth',
    );
    expect(mistake({ plans: [plan(), plan()], default: 'team' })).toContain('plan "team" is defined twice');
    expect(mistake({ plans: [plan()], default: 'free' })).toMatch(/default: names plan "free"/);
    expect(parsePlansFile.bind(null, '{"plans": [', FILE)).toThrow(
      /QR_PLANS_FILE \/etc\/qrm\/plans.json: not valid JSON/,
    );
  });

  it("keeps a paid plan's stripePriceId, and refuses one price on two plans or on the default plan", () => {
    const catalogue = parse({
      plans: [plan({ id: 'free' }), plan({ id: 'pro', monthlyPriceUsd: 19, stripePriceId: 'price_1Pro' })],
      default: 'free',
    });
    expect(catalogue.get('pro').stripePriceId).toBe('price_1Pro');
    expect(catalogue.byStripePriceId('price_1Pro')?.id).toBe('pro');
    expect(catalogue.get('free').stripePriceId).toBeUndefined();
    expect(
      mistake({
        plans: [
          plan({ id: 'free' }),
          plan({ id: 'a', stripePriceId: 'price_1' }),
          plan({ id: 'b', stripePriceId: 'price_1' }),
        ],
        default: 'free',
      }),
    ).toContain('plans[2] (plan "b").stripePriceId: is plan "a"\'s price too');
    expect(mistake({ plans: [plan({ id: 'free', stripePriceId: 'price_1' })], default: 'free' })).toContain(
      'plans[0] (plan "free").stripePriceId',
    );
    expect(mistake({ plans: [plan({ stripePriceId: 'price 1; drop' })], default: 'team' })).toContain(
      'must be a Stripe price id',
    );
  });

  describe('read from disk', () => {
    const dir = useTempDir('qrm-plans-');

    it('is the catalogue when QR_PLANS_FILE names it, and the three built-in plans without it', async () => {
      const path = join(dir.path, 'plans.json');
      await writeFile(path, JSON.stringify({ plans: [plan()], default: 'team' }));
      const config = loadConfig({ QR_PLANS_FILE: path });
      expect(loadPlanCatalogue(config.plansFile).plans.map((p) => p.id)).toEqual(['team']);
      expect(loadPlanCatalogue(loadConfig({}).plansFile).plans).toEqual(PlanCatalogue.builtIn().plans);
      expect(
        PlanCatalogue.builtIn().plans.map((p) => [p.id, p.requestsPerMonth, p.qrsPerMonth, p.burstPerSecond]),
      ).toEqual([
        ['free', 500, 5, 10],
        ['pro', 100_000, 10_000, 100],
        ['business', 2_000_000, 200_000, 1_000],
      ]);
    });

    it('names a file that cannot be read', () => {
      expect(() => loadPlanCatalogue(join(dir.path, 'missing.json'))).toThrow(
        /QR_PLANS_FILE .*missing\.json: cannot be read/,
      );
    });
  });
});
