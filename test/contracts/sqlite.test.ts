// Runs every port contract against the SQLite adapters (the embedded default), and the batch results on files beside
// them.
import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { FileBatchResults } from '../../src/adapters/files/batch-results.files.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { LastUsedBuffer } from '../../src/services/last-used-buffer.js';
import { accountStoreContract } from './account-store.contract.js';
import { batchResultsContract } from './batch-results.contract.js';
import { batchStoreContract } from './batch-store.contract.js';
import { dynamicCodeStoreContract } from './dynamic-code-store.contract.js';
import { scanEventSourceContract } from './scan-events.contract.js';
import { scanWebhookStoreContract } from './scan-webhooks.contract.js';
import { guessLimiterContract, scanAllowanceContract } from './scan-allowance.contract.js';
import { scanLedgerContract, scanRecorderContract } from './scan-ledger.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { auditLogContract } from './audit-log.contract.js';
import { memberStoreContract } from './member-store.contract.js';
import { signingKeyStoreContract } from './signing-key-store.contract.js';
import { designStoreContract } from './design-store.contract.js';
import { logoStoreContract } from './logo-store.contract.js';
import { customDomainStoreContract } from './custom-domain-store.contract.js';
import { lastUsedLogContract } from './last-used-log.contract.js';
import { usageLedgerContract } from './usage-ledger.contract.js';
import { usageMeterContract } from './usage-meter.contract.js';

type SqliteStores = ReturnType<typeof createSqliteStores>;

const opened: SqliteStores[] = [];
function fresh(): SqliteStores {
  const stores = createSqliteStores(':memory:');
  opened.push(stores);
  return stores;
}
const resultsDir = mkdtempSync(join(tmpdir(), 'qrm-batch-results-'));
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await rm(resultsDir, { recursive: true, force: true });
});

accountStoreContract('sqlite', () => fresh().accounts);
keyStoreContract('sqlite', async () => fresh());
auditLogContract('sqlite', async () => fresh());
signingKeyStoreContract('sqlite', async () => fresh());
designStoreContract('sqlite', async () => fresh());
logoStoreContract('sqlite', async () => fresh());
customDomainStoreContract('sqlite', async () => fresh());
memberStoreContract('sqlite', async () => fresh());
usageMeterContract('sqlite', () => fresh().meter);
usageLedgerContract('sqlite', () => fresh().usageLedger);
// The embedded default's last-used log lives in the API process: one process, nothing to share.
lastUsedLogContract('in-memory buffer', () => [new LastUsedBuffer()], { sharedAcrossProcesses: false });
dynamicCodeStoreContract('sqlite (embedded: with the one-second slug cache)', async () => fresh());
dynamicCodeStoreContract('sqlite (system of record under Redis mode)', async () => {
  const stores = createSqliteStores(':memory:', { cacheSlugs: false });
  opened.push(stores);
  return stores;
});
scanLedgerContract('sqlite', () => fresh().scanLedger);
scanAllowanceContract('sqlite', () => fresh().scanAllowance);
guessLimiterContract('sqlite', () => fresh().guesses);
scanWebhookStoreContract('sqlite', async () => fresh());
scanEventSourceContract('sqlite (counted in the recorder transaction)', async () => {
  const stores = fresh();
  return { recorder: stores.scans, events: stores.scanEvents };
});
scanRecorderContract('sqlite (group commit, exact uniques)', async () => {
  const { scans, scanLedger } = fresh();
  return { recorder: scans, read: async (codeId, day) => (await scanLedger.days(codeId, day, day))[0] };
});
batchStoreContract('sqlite', async () => fresh().batches!);
batchResultsContract('files', async () => ({
  results: new FileBatchResults(resultsDir),
  storedFiles: async (batchId) => (await readdir(join(resultsDir, 'batches', batchId)).catch(() => [])).length,
}));
