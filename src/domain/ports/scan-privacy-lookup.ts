// Port: an account's scan privacy as the redirect reads it, once per recorded scan.
import type { ScanPrivacy } from '../scan-privacy.js';

/**
 * Contract: answers the account's current setting (the default, `country`, for an account it does not know); a
 * change made through the AccountStore reaches every instance's answers within a second.
 */
export interface ScanPrivacyLookup {
  privacyOf(accountId: string): Promise<ScanPrivacy>;
}
