// Port: the accounts' custom domains in the system of record (hostname unique across accounts).
import type { CustomDomain } from '../custom-domain.js';

export interface NewCustomDomain {
  id: string;
  accountId: string;
  hostname: string;
  token: string;
  createdAt: Date;
}

/**
 * Contract (test/contracts/custom-domain-store.contract.ts):
 * - `createWithinLimit` is atomic: under any concurrency an account never holds more than `maxDomains`
 *   domains (null: unlimited); past it, `limit_reached` and nothing stored. A hostname held by any account
 *   (this one included) is `hostname_taken`.
 * - every read and delete that names a domain id also names its account (tenants never see each other's
 *   domains); only `findByHostname`, `activate`, `noteCheck` and `pendingDue` (the scan, the well-known answer,
 *   the verification job and operators) do not.
 * - `activate` is idempotent and keeps the first `verifiedAt`.
 */
export interface CustomDomainStore {
  createWithinLimit(input: NewCustomDomain, maxDomains: number | null): Promise<CustomDomain | 'limit_reached' | 'hostname_taken'>;
  /** The account's domains, oldest first. */
  list(accountId: string): Promise<CustomDomain[]>;
  get(accountId: string, id: string): Promise<CustomDomain | undefined>;
  findByHostname(hostname: string): Promise<CustomDomain | undefined>;
  /** Marks the domain active (once verified, or by an operator); undefined for an unknown id. */
  activate(id: string, at: Date): Promise<CustomDomain | undefined>;
  /** Records the outcome of an automatic check of a pending domain. */
  noteCheck(id: string, at: Date, problem: string | null): Promise<void>;
  /** Pending domains not checked since `before` (never-checked first, then the longest unchecked), at most `limit`. */
  pendingDue(before: Date, limit: number): Promise<CustomDomain[]>;
  /** True when the account had the domain. */
  remove(accountId: string, id: string): Promise<boolean>;
}
