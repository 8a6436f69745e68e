// The system of record as production mode sees it (SQLite or MongoDB), beneath the Redis layer.
import type { AccountStore } from '../domain/ports/account-store.js';
import type { DynamicCodeStore } from '../domain/ports/dynamic-code-store.js';
import type { KeyStore } from '../domain/ports/key-store.js';
import type { ScanLedger } from '../domain/ports/scan-ledger.js';
import type { UsageLedger } from '../domain/ports/usage-ledger.js';

export interface RecordStores {
  accounts: AccountStore;
  keys: KeyStore;
  usageLedger: UsageLedger;
  codes: DynamicCodeStore;
  scanLedger: ScanLedger;
  probes: Record<string, () => Promise<void>>;
  close(): Promise<void>;
}
