// Port: the accounts' custom domains in the system of record (hostname unique across accounts).
import type { CustomDomain, DomainStatus } from '../custom-domain.js';

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
 *   domains); only `findByHostname`, `activate`, `transition`, `noteCheck`, `due`, `expirePending` and `releaseExpired`
 *   (the scan, the well-known answer, the verification job and operators) do not.
 * - `activate` (from any status) is idempotent and keeps the first `verifiedAt`.
 * - `transition` changes the status only from the one named (a compare-and-set), so two checkers never both act.
 */
export interface CustomDomainStore {
  createWithinLimit(
    input: NewCustomDomain,
    maxDomains: number | null,
  ): Promise<CustomDomain | 'limit_reached' | 'hostname_taken'>;
  /** The account's domains, oldest first. */
  list(accountId: string): Promise<CustomDomain[]>;
  get(accountId: string, id: string): Promise<CustomDomain | undefined>;
  findByHostname(hostname: string): Promise<CustomDomain | undefined>;
  /** Marks the domain active (once proved, or by an operator); undefined for an unknown id. */
  activate(id: string, at: Date): Promise<CustomDomain | undefined>;
  /** `from` → `to`: the domain as it then is, or undefined when it was not in `from` (or is unknown). */
  transition(id: string, from: DomainStatus, to: DomainStatus): Promise<CustomDomain | undefined>;
  /** Records the outcome of a check of the domain. */
  noteCheck(id: string, at: Date, problem: string | null): Promise<void>;
  /**
   * Domains in `status` not checked since `before` (never-checked first, then the longest unchecked), at most `limit`.
   */
  due(status: DomainStatus, before: Date, limit: number): Promise<CustomDomain[]>;
  /** Pending domains created before `createdBefore` become expired; answers how many. */
  expirePending(createdBefore: Date): Promise<number>;
  /** Removes the expired domain holding `hostname`, if any (its hostname is free again); true when one was removed. */
  releaseExpired(hostname: string): Promise<boolean>;
  /** True when the account had the domain. */
  remove(accountId: string, id: string): Promise<boolean>;
}
