// Port: an account's saved designs, in the system of record.
import type { DesignOptions } from '../design.js';

export interface DesignRecord {
  id: string;
  accountId: string;
  name: string;
  options: DesignOptions;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewDesign {
  id: string;
  accountId: string;
  name: string;
  options: DesignOptions;
  createdAt: Date;
}

/** What an update changes: each field given replaces the stored one. */
export interface DesignChange {
  name?: string | undefined;
  options?: DesignOptions | undefined;
}

/**
 * Contract (test/contracts/design-store.contract.ts):
 * - `createWithinLimit` is atomic: under any concurrency an account never holds more than `maxDesigns`
 *   designs; past it, `limit_reached` and nothing stored. `null` means unlimited.
 * - every read, update and delete names the account: one tenant can never see, use or change another's designs.
 * - options come back exactly as stored.
 */
export interface DesignStore {
  createWithinLimit(input: NewDesign, maxDesigns: number | null): Promise<DesignRecord | 'limit_reached'>;
  list(accountId: string): Promise<DesignRecord[]>;
  get(accountId: string, id: string): Promise<DesignRecord | undefined>;
  /** The design after the change; undefined when the account has no such design. */
  update(accountId: string, id: string, change: DesignChange, at: Date): Promise<DesignRecord | undefined>;
  /** True when the account had the design. */
  delete(accountId: string, id: string): Promise<boolean>;
}
