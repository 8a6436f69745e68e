// Creates a fresh account with a unique identity in an AccountStore, for the store contract suites.
import { randomUUID } from 'node:crypto';
import type { Account, AccountStore, IdentityProvider } from '../../src/domain/ports/account-store.js';
import type { PlanId } from '../../src/domain/plan-catalogue.js';

export interface StoredAccountOptions {
  /** Starts the subject, so a failing case names the suite that made the account. */
  prefix?: string;
  plan?: PlanId;
  provider?: IdentityProvider;
}

/** An account whose subject is unique and whose e-mail is `<subject>@example.com`. */
export function createStoredAccount(accounts: AccountStore, options: StoredAccountOptions = {}): Promise<Account> {
  const { prefix = 'a', plan = 'pro', provider = 'local' } = options;
  const subject = `${prefix}-${randomUUID()}`;
  return accounts.create({
    email: `${subject}@example.com`,
    plan,
    identity: { provider, subject },
    createdAt: new Date(),
  });
}
