// Use cases of an account's settings: read them, change them (today: scanPrivacy).
import { ApiError } from '../domain/errors.js';
import type { AccountStore } from '../domain/ports/account-store.js';
import type { ScanPrivacy } from '../domain/scan-privacy.js';

export interface AccountSettings {
  scanPrivacy: ScanPrivacy;
}

export type AccountSettingsDeps = { accounts: Pick<AccountStore, 'findById' | 'setScanPrivacy'> };

export async function accountSettings(deps: AccountSettingsDeps, accountId: string): Promise<AccountSettings> {
  const account = await deps.accounts.findById(accountId);
  if (!account) throw new ApiError('not_found', 'no such account');
  return { scanPrivacy: account.scanPrivacy };
}

/** Applies the fields given (an empty change reads the settings back); 404 when the account is gone. */
export async function changeAccountSettings(
  deps: AccountSettingsDeps,
  accountId: string,
  changes: Partial<AccountSettings>,
): Promise<AccountSettings> {
  if (changes.scanPrivacy === undefined) return accountSettings(deps, accountId);
  const account = await deps.accounts.setScanPrivacy(accountId, changes.scanPrivacy);
  if (!account) throw new ApiError('not_found', 'no such account');
  return { scanPrivacy: account.scanPrivacy };
}
