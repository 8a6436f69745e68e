// The MongoDB system of record: accounts, keys, the usage ledger, dynamic codes, scan counts, batches and their results
// (GridFS) on one connection this module opens and closes.
import { MongoAuditLog } from './audit-log.mongo.js';
import type { RecordStores } from '../contract.js';
import { unavailableWhen } from '../unavailable-when.js';
import { MongoAccountStore } from './account-store.mongo.js';
import { MongoBatchStore } from './batch-store.mongo.js';
import { GridFsBatchResults } from './batch-results.gridfs.js';
import { isMongoOutage, openMongoConnection, type MongoConnectionOptions } from './connection.js';
import { MongoDynamicCodeStore } from './dynamic-code-store.mongo.js';
import { MongoCustomDomainStore } from './custom-domain-store.mongo.js';
import { MongoKeyStore } from './key-store.mongo.js';
import { MongoLogoStore } from './logo-store.mongo.js';
import { MongoMemberStore } from './member-store.mongo.js';
import { createMongoModels } from './models.js';
import { MongoDesignStore } from './design-store.mongo.js';
import { MongoSigningKeyStore } from './signing-key-store.mongo.js';
import { MongoScanWebhookStore } from './scan-webhooks.mongo.js';
import { MongoScanLedger } from './scan-ledger.mongo.js';
import { MongoUsageLedger } from './usage-ledger.mongo.js';

const DOWN = 'the data store is not available right now; retry shortly';

export async function createMongoStores(url: string, options: MongoConnectionOptions = {}): Promise<RecordStores> {
  const connection = await openMongoConnection(url, options);
  try {
    const models = await createMongoModels(connection);
    const batchResults = await GridFsBatchResults.open(connection);
    return {
      accounts: unavailableWhen(new MongoAccountStore(models), isMongoOutage, DOWN),
      keys: unavailableWhen(new MongoKeyStore(models.keys, models.accounts), isMongoOutage, DOWN),
      signingKeys: unavailableWhen(new MongoSigningKeyStore(models.signingKeys, models.accounts), isMongoOutage, DOWN),
      designs: unavailableWhen(new MongoDesignStore(models.designs), isMongoOutage, DOWN),
      auditLog: unavailableWhen(new MongoAuditLog(models.auditLog), isMongoOutage, DOWN),
      members: unavailableWhen(new MongoMemberStore(models), isMongoOutage, DOWN),
      usageLedger: unavailableWhen(new MongoUsageLedger(models), isMongoOutage, DOWN),
      logos: unavailableWhen(new MongoLogoStore(models.logos), isMongoOutage, DOWN),
      codes: unavailableWhen(new MongoDynamicCodeStore(models), isMongoOutage, DOWN),
      domains: unavailableWhen(new MongoCustomDomainStore(models.customDomains), isMongoOutage, DOWN),
      scanLedger: unavailableWhen(new MongoScanLedger(models.scanDays, models.codes), isMongoOutage, DOWN),
      scanWebhooks: unavailableWhen(
        new MongoScanWebhookStore(models.scanWebhooks, models.scanWebhookCounts),
        isMongoOutage,
        DOWN,
      ),
      batches: unavailableWhen(new MongoBatchStore(models), isMongoOutage, DOWN),
      batchResults: unavailableWhen(batchResults, isMongoOutage, DOWN),
      probes: {
        mongo: async () => {
          await connection.db!.admin().command({ ping: 1 });
        },
      },
      async close() {
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}
