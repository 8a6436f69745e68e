// Port: an account's uploaded logos (already re-encoded PNG), in the system of record.

/** The longest name a logo may have, and the name of one uploaded without one. */
export const LOGO_NAME_MAX = 64;
export const DEFAULT_LOGO_NAME = 'Untitled logo';

export interface LogoRecord {
  id: string;
  accountId: string;
  /** What people call it (shown in the portal's pickers instead of the id); editable. */
  name: string;
  /** Always image/png: every upload is re-encoded, whatever it came as. */
  mediaType: 'image/png';
  width: number;
  height: number;
  /** Size of the stored PNG in bytes. */
  bytes: number;
  /** SHA-256 of the stored PNG (base64url): names the logo in render keys, so an equal logo renders from cache. */
  digest: string;
  createdAt: Date;
}

export interface StoredLogo extends LogoRecord {
  png: Uint8Array;
}

export interface NewLogo {
  accountId: string;
  name: string;
  png: Uint8Array;
  width: number;
  height: number;
  digest: string;
  createdAt: Date;
}

/**
 * Contract (test/contracts/logo-store.contract.ts):
 * - `createWithinLimit` is atomic: under any concurrency an account never holds more than `maxLogos`
 *   logos; past it, `limit_reached` and nothing stored. `null` means unlimited.
 * - every read, rename and delete names the account: one tenant can never see, use, rename or delete another's logos.
 * - `rename` changes the name only (the image, digest and creation time stay) and answers the logo as now stored.
 */
export interface LogoStore {
  createWithinLimit(input: NewLogo, maxLogos: number | null): Promise<LogoRecord | 'limit_reached'>;
  list(accountId: string): Promise<LogoRecord[]>;
  get(accountId: string, id: string): Promise<StoredLogo | undefined>;
  /** The renamed logo, or undefined when the account has no logo with this id. */
  rename(accountId: string, id: string, name: string): Promise<LogoRecord | undefined>;
  /** True when the account had the logo. */
  delete(accountId: string, id: string): Promise<boolean>;
}
