// Contract suite for the AuditLog port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditLog, NewAuditEntry } from '../../src/domain/ports/audit-log.js';

export function auditLogContract(adapterName: string, makeStores: () => Promise<{ auditLog: AuditLog }>): void {
  describe(`AuditLog contract: ${adapterName}`, () => {
    const entry = (accountId: string, at: number, extra: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
      accountId,
      at: new Date(at),
      actor: { type: 'api_key', id: 'key_1', label: 'qrm_live_…abcd' },
      action: 'code.created',
      target: { type: 'code', id: `dyn_${at}` },
      ip: '203.0.113.7',
      userAgent: 'curl/8',
      changes: { slug: 'spring', fields: ['target'] },
      expiresAt: undefined,
      ...extra,
    });

    it('stores an entry as given and lists the account’s own entries only, newest first', async () => {
      const { auditLog } = await makeStores();
      const account = `acc_${randomUUID()}`;
      const appended = await auditLog.append(entry(account, 1_000));
      await auditLog.append(entry(account, 3_000, { action: 'code.deleted' }));
      await auditLog.append(entry(`acc_${randomUUID()}`, 2_000));
      const page = await auditLog.list(account, { limit: 10 });
      expect(page.items.map((e) => e.action)).toEqual(['code.deleted', 'code.created']);
      expect(page.items[1]).toEqual({
        id: appended.id,
        accountId: account,
        at: new Date(1_000),
        actor: { type: 'api_key', id: 'key_1', label: 'qrm_live_…abcd' },
        action: 'code.created',
        target: { type: 'code', id: 'dyn_1000' },
        ip: '203.0.113.7',
        userAgent: 'curl/8',
        changes: { slug: 'spring', fields: ['target'] },
      });
      expect(page.nextCursor).toBeNull();
    });

    it('filters by action, actor and time, and pages with a cursor that shows every entry once', async () => {
      const { auditLog } = await makeStores();
      const account = `acc_${randomUUID()}`;
      for (let i = 0; i < 5; i++) await auditLog.append(entry(account, 10_000 + i * 1_000));
      await auditLog.append(
        entry(account, 10_000, { action: 'api_key.created', actor: { type: 'operator', id: 'qrm', label: 'qrm' } }),
      );
      expect((await auditLog.list(account, { limit: 10, action: 'api_key.created' })).items).toHaveLength(1);
      expect((await auditLog.list(account, { limit: 10, actorId: 'qrm' })).items.map((e) => e.action)).toEqual([
        'api_key.created',
      ]);
      const window = await auditLog.list(account, { limit: 10, from: new Date(11_000), to: new Date(13_000) });
      expect(window.items.map((e) => e.at.getTime())).toEqual([12_000, 11_000]);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await auditLog.list(account, { limit: 4, cursor });
        seen.push(...page.items.map((e) => e.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
    });

    it('drops only the entries whose expiry has come', async () => {
      const { auditLog } = await makeStores();
      const account = `acc_${randomUUID()}`;
      await auditLog.append(entry(account, 1_000, { expiresAt: new Date(5_000) }));
      await auditLog.append(entry(account, 2_000, { expiresAt: new Date(9_000) }));
      await auditLog.append(entry(account, 3_000, { expiresAt: undefined }));
      expect(await auditLog.deleteExpired(new Date(5_000))).toBeGreaterThanOrEqual(1);
      expect((await auditLog.list(account, { limit: 10 })).items.map((e) => e.at.getTime())).toEqual([3_000, 2_000]);
    });
  });
}
