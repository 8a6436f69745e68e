// Contract suite for the DynamicCodeStore port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NO_ROUTING, type CodeRouting } from '../../src/domain/code-routing.js';
import { newSlug, type DynamicCode } from '../../src/domain/dynamic-code.js';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import type { DynamicCodeStore, NewDynamicCode } from '../../src/domain/ports/dynamic-code-store.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function dynamicCodeStoreContract(
  adapterName: string,
  makeStores: () => Promise<{ accounts: AccountStore; codes: DynamicCodeStore }>,
): void {
  describe(`DynamicCodeStore contract: ${adapterName}`, () => {
    async function setup() {
      const { accounts, codes } = await makeStores();
      const account = await createStoredAccount(accounts, { prefix: 'd' });
      const newCode = (target = 'https://example.com/', createdAt = new Date()) => ({
        accountId: account.id,
        slug: newSlug(),
        target,
        name: null,
        routing: NO_ROUTING as CodeRouting,
        createdAt,
      });
      const create = async (target?: string, createdAt?: Date): Promise<DynamicCode> => {
        const made = await codes.createWithinLimit(newCode(target, createdAt), 1_000);
        if (typeof made === 'string') throw new Error(`unexpected ${made}`);
        return made;
      };
      return { codes, account, newCode, create };
    }

    it('creates an active code and finds it by slug', async () => {
      const { codes, account, create } = await setup();
      const code = await create('https://example.com/a');
      expect(code).toMatchObject({
        accountId: account.id,
        target: 'https://example.com/a',
        status: 'active',
        name: null,
        disabledReason: null,
      });
      expect(await codes.findBySlug(code.slug)).toEqual({
        codeId: code.id,
        accountId: account.id,
        target: 'https://example.com/a',
        state: 'active',
        routing: NO_ROUTING,
      });
      expect(await codes.findBySlug(newSlug())).toBeUndefined();
      expect(await codes.get(account.id, code.id)).toEqual(code);
    });

    it('pages through every code by id for the sweeps, deleted ones too, each once', async () => {
      const { codes, account, create } = await setup();
      const made = [await create(), await create(), await create()];
      await codes.remove(account.id, made[1]!.id, new Date());
      const seen: Array<{ id: string; accountId: string }> = [];
      for (let after: string | undefined, page = 0; page < 10_000; page++) {
        const found = await codes.codesById(after, 2);
        expect(found.length).toBeLessThanOrEqual(2);
        if (found.length === 0) break;
        seen.push(...found);
        after = found.at(-1)!.id;
      }
      expect(seen.map((code) => code.id)).toEqual([...new Set(seen.map((code) => code.id))].sort());
      for (const code of made) expect(seen).toContainEqual({ id: code.id, accountId: account.id });
    });

    it('never holds more than the limit of codes, even under concurrent creation; deleting frees a place', async () => {
      const { codes, account, newCode } = await setup();
      const results = await Promise.all(Array.from({ length: 12 }, () => codes.createWithinLimit(newCode(), 5)));
      expect(results.filter((r) => typeof r !== 'string')).toHaveLength(5);
      expect(results.filter((r) => r === 'limit_reached')).toHaveLength(7);
      expect(await codes.count(account.id)).toBe(5);
      const first = results.find((r): r is DynamicCode => typeof r !== 'string')!;
      expect(await codes.remove(account.id, first.id, new Date())).toBe(true);
      expect(await codes.count(account.id)).toBe(4);
      expect(typeof (await codes.createWithinLimit(newCode(), 5))).toBe('object');
      expect(await codes.createWithinLimit(newCode(), 5)).toBe('limit_reached');
    });

    it(
      'creates many codes all at once or none: within the limit for the lot, in input order; a taken slug or the ' +
        'limit stores nothing',
      async () => {
        const { codes, account, create, newCode } = await setup();
        await create();
        const lot = [
          newCode('https://example.com/0'),
          newCode('https://example.com/1'),
          newCode('https://example.com/2'),
        ];
        expect(await codes.createManyWithinLimit(lot, 3)).toBe('limit_reached');
        const taken = await create();
        expect(await codes.createManyWithinLimit([newCode(), { ...newCode(), slug: taken.slug }], 100)).toBe(
          'slug_taken',
        );
        expect(await codes.count(account.id)).toBe(2);
        const made = await codes.createManyWithinLimit(lot, 5);
        if (typeof made === 'string') throw new Error(`unexpected ${made}`);
        expect(made.map((code) => [code.target, code.slug, code.accountId, code.status])).toEqual(
          lot.map((c) => [c.target, c.slug, account.id, 'active']),
        );
        expect(new Set(made.map((code) => code.id)).size).toBe(3);
        expect(await codes.count(account.id)).toBe(5);
        for (const code of made) expect(await codes.get(account.id, code.id)).toEqual(code);
        expect((await codes.findBySlug(lot[2]!.slug))?.codeId).toBe(made[2]!.id);
        // The places taken are exact: one more is over the limit, and the lot after a refused one still fits.
        expect(await codes.createWithinLimit(newCode(), 5)).toBe('limit_reached');
        expect(await codes.createManyWithinLimit([], 5)).toEqual([]);
      },
    );

    it(
      'lists only the codes every condition matches (text in any case, status, domain, slug), in either order, a ' +
        'page at a time',
      async () => {
        const { codes, account, newCode } = await setup();
        const at = (second: number) => new Date(Date.UTC(2026, 1, 1, 0, 0, second));
        const make = async (input: NewDynamicCode) => {
          const made = await codes.createWithinLimit(input, 1_000);
          if (typeof made === 'string') throw new Error(`unexpected ${made}`);
          return made;
        };
        const sale = await make({ ...newCode('https://shop.example/Spring-Sale', at(1)), name: 'Poster' });
        const menu = await make({ ...newCode('https://cafe.example/menu', at(2)), name: 'Spring menu' });
        const plain = await make(newCode('https://example.com/other', at(3)));
        const vanity = { domainId: 'dom_aaaaaaaaaaaaaaaaaaaa', hostname: 'go.filter.example', slug: 'spring-x' };
        const onDomain = await make({ ...newCode('https://example.com/v', at(4)), vanity });
        const gone = await make({ ...newCode('https://example.com/spring-gone', at(5)), name: 'spring' });
        await codes.remove(account.id, gone.id, at(6));
        expect(await codes.update(account.id, menu.id, { status: 'paused' }, at(7))).toMatchObject({
          status: 'paused',
        });
        const ids = async (query: Omit<Parameters<DynamicCodeStore['list']>[1], 'limit'>) =>
          (await codes.list(account.id, { limit: 10, ...query })).map((c) => c.id);

        expect(await ids({ text: 'spring' })).toEqual([onDomain.id, menu.id, sale.id]);
        expect(await ids({ text: 'spring', order: 'oldest' })).toEqual([sale.id, menu.id, onDomain.id]);
        expect(await ids({ text: 'spring', status: 'active' })).toEqual([onDomain.id, sale.id]);
        expect(await ids({ status: 'paused' })).toEqual([menu.id]);
        expect(await ids({ domainId: vanity.domainId })).toEqual([onDomain.id]);
        expect(await ids({ domainId: null })).toEqual([plain.id, menu.id, sale.id]);
        expect(await ids({ slug: plain.slug })).toEqual([plain.id]);
        expect(await ids({ slug: 'spring-x' })).toEqual([onDomain.id]);
        expect(await ids({ text: 'no such text' })).toEqual([]);
        expect(await ids({ text: '.*' })).toEqual([]);

        const first = await codes.list(account.id, { limit: 2, order: 'oldest', domainId: null });
        const next = await codes.list(account.id, { limit: 2, order: 'oldest', domainId: null, after: first.at(-1)! });
        expect([...first, ...next].map((c) => c.id)).toEqual([sale.id, menu.id, plain.id]);
      },
    );

    it('never gives a taken slug to another code, deleted or not', async () => {
      const { codes, account, create, newCode } = await setup();
      const code = await create();
      await codes.remove(account.id, code.id, new Date());
      expect(await codes.createWithinLimit({ ...newCode(), slug: code.slug }, 1_000)).toBe('slug_taken');
      expect(await codes.findBySlug(code.slug)).toMatchObject({ codeId: code.id, state: 'deleted' });
    });

    it('lists codes that are not deleted, newest first, a page at a time', async () => {
      const { codes, account, create } = await setup();
      const made = [];
      for (let i = 0; i < 5; i++)
        made.push(await create(`https://example.com/${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3))));
      await codes.remove(account.id, made[0]!.id, new Date());
      const all = await codes.list(account.id, { limit: 10 });
      expect(all).toHaveLength(4);
      const order = all.map((c) => [c.createdAt.getTime(), c.id] as const);
      expect(order).toEqual([...order].sort((x, y) => y[0] - x[0] || (y[1] < x[1] ? -1 : 1)));
      const page1 = await codes.list(account.id, { limit: 2 });
      const page2 = await codes.list(account.id, {
        limit: 2,
        after: { createdAt: page1[1]!.createdAt, id: page1[1]!.id },
      });
      expect([...page1, ...page2].map((c) => c.id)).toEqual(all.map((c) => c.id));
    });

    it('updates target, name and status, and the slug follows at once', async () => {
      const { codes, account, create } = await setup();
      const code = await create('https://example.com/old');
      const at = new Date(Date.now() + 1_000);
      const updated = await codes.update(
        account.id,
        code.id,
        { target: 'https://example.com/new', name: 'Menu', status: 'paused' },
        at,
      );
      expect(updated).toMatchObject({
        target: 'https://example.com/new',
        name: 'Menu',
        status: 'paused',
        updatedAt: at,
      });
      expect(await codes.findBySlug(code.slug)).toMatchObject({
        codeId: code.id,
        target: 'https://example.com/new',
        state: 'paused',
      });
      expect(await codes.update(account.id, code.id, { name: null }, at)).toMatchObject({
        name: null,
        target: 'https://example.com/new',
      });
    });

    it('stores the routing with the code, changes only the routing fields named, and answers it by slug', async () => {
      const { codes, account, newCode } = await setup();
      const routing: CodeRouting = {
        ...NO_ROUTING,
        rules: [
          { if: { device: ['ios'], language: ['pt-BR'], query: { src: 'flyer' } }, target: 'https://example.com/ios' },
        ],
        expiresAt: '2030-01-01T00:00:00.000Z',
        maxScans: 100,
        utm: { source: 'qr', medium: 'print', campaign: 'spring' },
        passwordHash: 'scrypt$16384$8$1$c2FsdA$a2V5',
      };
      const made = await codes.createWithinLimit({ ...newCode(), routing }, 1_000);
      if (typeof made === 'string') throw new Error(made);
      expect(made.routing).toEqual(routing);
      expect((await codes.findBySlug(made.slug))?.routing).toEqual(routing);
      const changed = await codes.update(
        account.id,
        made.id,
        { routing: { maxScans: null, forwardQuery: true, passwordHash: null } },
        new Date(),
      );
      const expected = { ...routing, maxScans: null, forwardQuery: true, passwordHash: null };
      expect(changed).toMatchObject({ routing: expected });
      expect(await codes.get(account.id, made.id)).toMatchObject({ routing: expected });
      expect((await codes.findBySlug(made.slug))?.routing).toEqual(expected);
      const plain = await codes.update(
        account.id,
        made.id,
        { routing: { rules: [], expiresAt: null, utm: null, forwardQuery: false } },
        new Date(),
      );
      expect(plain).toMatchObject({ routing: NO_ROUTING });
    });

    it('scopes every operation but the slug lookup to the owning account', async () => {
      const a = await setup();
      const b = await setup();
      const code = await a.create('https://example.com/a');
      expect(await b.codes.get(b.account.id, code.id)).toBeUndefined();
      expect(
        await b.codes.update(b.account.id, code.id, { target: 'https://evil.example/' }, new Date()),
      ).toBeUndefined();
      expect(await b.codes.remove(b.account.id, code.id, new Date())).toBe(false);
      expect(await b.codes.list(b.account.id, { limit: 10 })).toEqual([]);
      expect((await a.codes.findBySlug(code.slug))?.target).toBe('https://example.com/a');
    });

    it('disables a code by slug for good: its owner can no longer change it, but can delete it', async () => {
      const { codes, account, create } = await setup();
      const code = await create();
      const disabled = await codes.disableBySlug(code.slug, 'phishing', new Date());
      expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'phishing' });
      expect(await codes.update(account.id, code.id, { status: 'active' }, new Date())).toBe('disabled');
      expect(await codes.findBySlug(code.slug)).toMatchObject({ state: 'disabled' });
      expect(await codes.disableBySlug(newSlug(), 'unknown', new Date())).toBeUndefined();
      expect(await codes.remove(account.id, code.id, new Date())).toBe(true);
      expect(await codes.findBySlug(code.slug)).toMatchObject({ state: 'deleted' });
    });

    describe('vanity slugs on custom domains', () => {
      const vanityOn = (hostname: string, slug: string, domainId = `dom_${hostname.slice(0, 20)}`) => ({
        domainId,
        hostname,
        slug,
      });
      const host = () => `h${randomUUID().slice(0, 8)}.example.com`;

      it(
        'holds a vanity slug once per hostname, found by ' + 'hostname and slug; the random slug keeps resolving',
        async () => {
          const { codes, account, newCode } = await setup();
          const hostname = host();
          const vanity = vanityOn(hostname, 'spring-sale');
          const made = await codes.createWithinLimit({ ...newCode('https://example.com/spring'), vanity }, 1_000);
          if (typeof made === 'string') throw new Error(`unexpected ${made}`);
          expect(made.vanity).toEqual(vanity);
          expect((await codes.get(account.id, made.id))?.vanity).toEqual(vanity);
          expect(await codes.findByVanity(hostname, 'spring-sale')).toMatchObject({
            codeId: made.id,
            accountId: account.id,
            target: 'https://example.com/spring',
            state: 'active',
          });
          expect((await codes.findBySlug(made.slug))?.codeId).toBe(made.id);
          expect(await codes.createWithinLimit({ ...newCode(), vanity }, 1_000)).toBe('vanity_taken');
          expect(await codes.count(account.id)).toBe(1);
          expect(await codes.findByVanity(host(), 'spring-sale')).toBeUndefined();
          expect(await codes.countOnDomain(vanity.domainId)).toBe(1);
          const plain = await codes.createWithinLimit(newCode(), 1_000);
          expect(typeof plain !== 'string' && plain.vanity).toBeNull();
        },
      );

      it('moves a code to another slug, refuses a slug another code holds, and takes it off the domain', async () => {
        const { codes, account, newCode } = await setup();
        const hostname = host();
        const first = await codes.createWithinLimit(
          { ...newCode('https://example.com/1'), vanity: vanityOn(hostname, 'one') },
          1_000,
        );
        const second = await codes.createWithinLimit(
          { ...newCode('https://example.com/2'), vanity: vanityOn(hostname, 'two') },
          1_000,
        );
        if (typeof first === 'string' || typeof second === 'string') throw new Error('unexpected');
        const moved = await codes.update(account.id, first.id, { vanity: vanityOn(hostname, 'uno') }, new Date());
        expect(typeof moved !== 'string' && moved?.vanity?.slug).toBe('uno');
        expect(await codes.findByVanity(hostname, 'one')).toBeUndefined();
        expect((await codes.findByVanity(hostname, 'uno'))?.codeId).toBe(first.id);
        expect(
          await codes.update(
            account.id,
            first.id,
            { vanity: vanityOn(hostname, 'two'), target: 'https://example.com/x' },
            new Date(),
          ),
        ).toBe('vanity_taken');
        expect(await codes.get(account.id, first.id)).toMatchObject({
          target: 'https://example.com/1',
          vanity: vanityOn(hostname, 'uno'),
        });
        const off = await codes.update(account.id, first.id, { vanity: null }, new Date());
        expect(typeof off !== 'string' && off?.vanity).toBeNull();
        expect(await codes.findByVanity(hostname, 'uno')).toBeUndefined();
        expect(await codes.countOnDomain(vanityOn(hostname, 'x').domainId)).toBe(1);
      });

      it('frees the vanity slug of a deleted code (the random slug stays reserved)', async () => {
        const { codes, account, newCode } = await setup();
        const hostname = host();
        const vanity = vanityOn(hostname, 'flyer');
        const made = await codes.createWithinLimit({ ...newCode(), vanity }, 1_000);
        if (typeof made === 'string') throw new Error(`unexpected ${made}`);
        expect(await codes.remove(account.id, made.id, new Date())).toBe(true);
        expect(await codes.findByVanity(hostname, 'flyer')).toBeUndefined();
        expect(await codes.countOnDomain(vanity.domainId)).toBe(0);
        expect(await codes.findBySlug(made.slug)).toMatchObject({ state: 'deleted' });
        const again = await codes.createWithinLimit({ ...newCode('https://example.com/again'), vanity }, 1_000);
        expect(typeof again !== 'string' && again.vanity).toEqual(vanity);
      });
    });
  });
}
