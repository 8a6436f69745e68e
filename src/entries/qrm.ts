#!/usr/bin/env node
// qrm: the operator's admin command — accounts, plans, keys, usage and backups, on the same configuration as the
// server.
import { changeAccountSettings } from '../services/account-settings.js';
import { isScanPrivacy, SCAN_PRIVACY_LEVELS } from '../domain/scan-privacy.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BackupError, backupDatabase, restoreDatabase } from '../adapters/sqlite/backup.js';
import { databaseFile } from '../adapters/sqlite/database.js';
import { migrateRedisKeys } from '../composition/redis-migration.js';
import { createCliAdapters } from '../composition/cli.js';
import { ConfigError, type Config } from '../config.js';
import { ApiError } from '../domain/errors.js';
import type { Limit, PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { Account } from '../domain/ports/account-store.js';
import { plansSource } from '../plans-file.js';
import { changePlan, createLocalAccount, findAccountByEmail, usageReport } from '../services/accounts.js';
import { issueKey, listKeys, revokeKey } from '../services/api-keys.js';
import { OPERATOR_ACTOR } from '../domain/actor.js';
import { appendAudit } from '../services/audit-log.js';
import { keyCreatedEvent } from '../services/key-audit.js';
import { KEY_SCOPES } from '../domain/key-scope.js';
import { assertAccountsOnKnownPlans, listPlans, OrphanedPlanError } from '../services/plans.js';
import { allCodes, disableCode } from '../services/dynamic-codes.js';
import { billingSummary, syncBilling } from '../services/billing.js';
import { configOrExit } from './process-lifecycle.js';
import { activateByHostname, listDomains } from '../services/custom-domains.js';
import { verificationUrl } from '../domain/custom-domain.js';
import { commandNamed, commandUsage, optionsOf, QRM_OPTIONS, QRM_USAGE, type QrmCommand } from './qrm-commands.js';

/** A command or option qrm does not take, or a value it cannot use: exit 2, with the help that applies. */
class UsageError extends Error {
  usage: string;
  constructor(message: string, usage = QRM_USAGE) {
    super(message);
    this.usage = usage;
  }
}

function planOption(plans: PlanCatalogue, value: string | undefined, fallback?: PlanId): PlanId {
  if (value === undefined && fallback) return fallback;
  if (value === undefined || !plans.has(value))
    throw new UsageError(`--plan must be one of ${plans.plans.map((plan) => plan.id).join(', ')}`);
  return value;
}

function limitText(limit: Limit): string {
  return limit === null ? 'unlimited' : String(limit);
}

/** backup and restore touch only the embedded SQLite file: they open no store and connect to nothing. */
async function runFileCommand(
  command: 'backup' | 'restore',
  config: Config,
  file: string,
  print: (human: string, data: unknown) => void,
): Promise<void> {
  if (config.mongodbUrl) {
    throw new UsageError(
      `${command}: the system of record is MongoDB (MONGODB_URL): back it up with mongodump and restore with ` +
        `mongorestore (README, Production)`,
    );
  }
  if (config.redis) {
    // Counters reach SQLite through the jobs process's rollup (every minute): the copy has them up to the last rollup.
    process.stderr.write(
      `qrm: REDIS_URL is set: this month's counters are in Redis; the ${command} holds them up to the last ` +
        `usage rollup\n`,
    );
  }
  if (command === 'backup') {
    const result = await backupDatabase(config.dataDir, file);
    print(`backed up ${result.accounts} accounts to ${result.file} (${result.bytes} bytes, integrity ok)`, result);
    return;
  }
  const result = await restoreDatabase(config.dataDir, file);
  const kept = result.previous ? `; the database it replaced is kept as ${result.previous}` : '';
  print(`restored ${result.file} from ${file} (${result.accounts} accounts)${kept}`, result);
}

/** --expires as an ISO 8601 instant with its zone (a bare date or local time would depend on the operator's clock). */
function expiresOption(value: string): Date {
  const at = /(Z|[+-]\d{2}:\d{2})$/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime()))
    throw new UsageError('--expires must be an ISO 8601 instant with its zone, e.g. 2027-01-31T00:00:00Z');
  return at;
}

/** The operator at this machine's command line: no address, no browser. */
const OPERATOR_CONTEXT = { actor: OPERATOR_ACTOR, ip: null, userAgent: null };

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

/** parseArgs over the command table's options; an unknown option or a missing value is a usage error. */
function parseOptions(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: QRM_OPTIONS, tokens: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      throw new UsageError(`unknown option ${/'[^']+'/.exec(message)?.[0]}`);
    throw new UsageError(message);
  }
}

async function run(argv: string[], out: (line: string) => void): Promise<void> {
  const { values, positionals, tokens } = parseOptions(argv);
  const name = positionals.join(' ');
  if (name === '') {
    out(QRM_USAGE);
    return;
  }
  const command = commandNamed(name);
  if (!command) throw new UsageError(`unknown command '${name}'`);
  if (values.help) {
    out(commandUsage(command));
    return;
  }
  const taken: readonly string[] = optionsOf(command);
  const refused = tokens.find((token) => token.kind === 'option' && !taken.includes(token.name));
  if (refused?.kind === 'option')
    throw new UsageError(`${name} does not take ${refused.rawName}`, commandUsage(command));
  try {
    await runCommand(command, values, out);
  } catch (error) {
    if (error instanceof UsageError && error.usage === QRM_USAGE)
      throw new UsageError(error.message, commandUsage(command));
    throw error;
  }
}

type QrmValues = ReturnType<typeof parseOptions>['values'];

async function runCommand(command: QrmCommand, values: QrmValues, out: (line: string) => void): Promise<void> {
  const config = configOrExit('qrm');
  const print = (human: string, data: unknown) => out(values.json ? JSON.stringify(data) : human);
  if (command.name === 'backup') return runFileCommand('backup', config, required(values.to, '--to'), print);
  if (command.name === 'restore') return runFileCommand('restore', config, required(values.from, '--from'), print);
  if (command.name === 'redis migrate-keys') {
    const moved = await migrateRedisKeys(config);
    print(
      `moved ${moved.accountMonths} account-months of counters, ${moved.scanEventAccounts} accounts' waiting ` +
        `scan events, ${moved.endpoints} webhook outboxes`,
      moved,
    );
    return;
  }
  assertServersDatabase(config, values.create);
  const adapters = await createCliAdapters(config);
  const { stores, deps, plans } = adapters;

  const target = async (): Promise<Account> => {
    if (values.account) {
      const account = await stores.accounts.findById(values.account);
      if (!account) throw new ApiError('not_found', `no account ${values.account}`);
      return account;
    }
    return findAccountByEmail(deps, required(values.email, '--email'));
  };

  try {
    // The server refuses to start over accounts on a plan the catalogue lacks; qrm only warns, as it is how they are
    // moved.
    await assertAccountsOnKnownPlans(plans, stores.accounts, plansSource(config.plansFile)).catch((error: unknown) => {
      if (!(error instanceof OrphanedPlanError)) throw error;
      process.stderr.write(`qrm: warning: ${error.message}\n`);
    });
    switch (command.name) {
      case 'plans': {
        const listing = await listPlans(plans, stores.accounts);
        const lines = listing.map(
          (p) =>
            `${p.id}${p.isDefault ? ' (default)' : ''}  ${p.name}  $${p.monthlyPriceUsd}/month  requests/month ` +
            `${limitText(p.requestsPerMonth)}  QRs/month ${limitText(p.qrsPerMonth)}  ` +
            `burst/s ${limitText(p.burstPerSecond)}  formats ${p.formats.join(',')}  accounts ${p.accounts}`,
        );
        print(`${plansSource(config.plansFile)}\n${lines.join('\n')}`, listing);
        return;
      }
      case 'accounts create': {
        const account = await createLocalAccount(
          deps,
          required(values.email, '--email'),
          planOption(plans, values.plan, plans.defaultPlan.id),
        );
        print(`account ${account.id} ${account.email} plan=${account.plan}`, account);
        return;
      }
      case 'accounts plan': {
        const before = await target();
        const account = await changePlan(deps, before.id, planOption(plans, values.plan));
        await appendAudit(deps, OPERATOR_CONTEXT, {
          accountId: account.id,
          action: 'plan.changed',
          target: { type: 'account', id: account.id },
          changes: { from: before.plan, to: account.plan },
        });
        print(`account ${account.id} ${account.email} plan=${account.plan}`, account);
        return;
      }
      case 'accounts privacy': {
        const account = await target();
        const level = values['scan-privacy'];
        if (level !== undefined && !isScanPrivacy(level))
          throw new UsageError(`--scan-privacy must be one of ${SCAN_PRIVACY_LEVELS.join(', ')}`);
        const settings = await changeAccountSettings(
          { accounts: stores.accounts },
          account.id,
          level === undefined ? {} : { scanPrivacy: level },
        );
        if (settings.scanPrivacy !== account.scanPrivacy) {
          await appendAudit(deps, OPERATOR_CONTEXT, {
            accountId: account.id,
            action: 'settings.changed',
            target: { type: 'account', id: account.id },
            changes: { scanPrivacy: settings.scanPrivacy },
          });
        }
        print(`account ${account.id} ${account.email} scanPrivacy=${settings.scanPrivacy}`, {
          accountId: account.id,
          ...settings,
        });
        return;
      }
      case 'keys create': {
        const issued = await issueKey(deps, (await target()).id, values.name, {
          scopes: values.scopes?.split(',').map((scope) => scope.trim()),
          expiresAt: values.expires === undefined ? undefined : expiresOption(values.expires),
          createdBy: OPERATOR_ACTOR,
        });
        await appendAudit(deps, OPERATOR_CONTEXT, keyCreatedEvent(issued.key));
        // The secret alone on stdout, so `KEY=$(qrm keys create ...)` works; the rest goes to stderr.
        out(values.json ? JSON.stringify({ secret: issued.secret, key: issued.key }) : issued.secret);
        if (!values.json)
          process.stderr.write(
            `created key ${issued.key.id} (${issued.key.hint}); the secret is shown only this once\n`,
          );
        return;
      }
      case 'keys list': {
        const keys = await listKeys(deps, (await target()).id);
        const now = deps.clock();
        const status = (k: (typeof keys)[number]) =>
          k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt <= now ? 'expired' : 'active ';
        const lines = keys.map(
          (k) =>
            `${k.id}  ${k.hint}  ${status(k)}  scopes ` +
            `${k.scopes.length === KEY_SCOPES.length ? 'all' : k.scopes.join(',')}  ` +
            `expires ${k.expiresAt?.toISOString() ?? 'never'}  created ${k.createdAt.toISOString()}  ` +
            `last used ${k.lastUsedAt?.toISOString() ?? 'never'}  ${k.name}`,
        );
        print(lines.join('\n') || '(no keys)', keys);
        return;
      }
      case 'keys revoke': {
        const key = await revokeKey(deps, (await target()).id, required(values.id, '--id'));
        await appendAudit(deps, OPERATOR_CONTEXT, {
          accountId: key.accountId,
          action: 'api_key.revoked',
          target: { type: 'api_key', id: key.id },
        });
        print(`revoked ${key.id} (${key.hint}) at ${key.revokedAt?.toISOString()}`, key);
        return;
      }
      case 'usage': {
        const account = await target();
        const report = await usageReport(deps, account);
        const q = report.quota;
        print(
          `${account.email} plan=${account.plan} period=${report.period}\n` +
            (`requests ${report.requests}/${limitText(q.requestLimit)}  QRs ${report.qrs}/` +
              `${limitText(q.qrLimit)}  resets ${q.resetAt.toISOString()}`),
          report,
        );
        return;
      }
      case 'codes list': {
        const codes = await allCodes(deps, (await target()).id);
        const lines = codes.map(
          (c) =>
            `${c.id}  ${c.slug}  ${c.status.padEnd(8)}  created ${c.createdAt.toISOString()}  ${c.target}` +
            `${c.name ? `  (${c.name})` : ''}${c.disabledReason ? `  disabled: ${c.disabledReason}` : ''}`,
        );
        print(lines.join('\n') || '(no dynamic codes)', codes);
        return;
      }
      case 'codes disable': {
        // Through the same stores as the server: in production the change is pushed to every instance's slug cache.
        const code = await disableCode(deps, required(values.slug, '--slug'), required(values.reason, '--reason'));
        print(`disabled ${code.slug} (${code.id}): ${code.disabledReason}`, code);
        return;
      }
      case 'domains list': {
        const domains = await listDomains(stores, (await target()).id);
        const lines = domains.map(
          (d) =>
            `${d.id}  ${d.hostname}  ${d.status.padEnd(7)}  created ${d.createdAt.toISOString()}  ` +
            `${d.status === 'pending' ? verificationUrl(d) : `verified ${d.verifiedAt?.toISOString()}`}`,
        );
        print(lines.join('\n') || '(no custom domains)', domains);
        return;
      }
      case 'domains verify': {
        const domain = await activateByHostname(
          { domains: stores.domains, clock: deps.clock },
          required(values.hostname, '--hostname'),
        );
        print(`${domain.hostname} (${domain.id}) is active since ${domain.verifiedAt?.toISOString()}`, domain);
        return;
      }
      case 'billing show': {
        const account = await target();
        print(`${account.email} plan=${account.plan} ${billingSummary(account.billing)}`, {
          accountId: account.id,
          email: account.email,
          plan: account.plan,
          billing: account.billing ?? null,
        });
        return;
      }
      case 'billing sync': {
        if (!adapters.billing)
          throw new UsageError(
            'billing sync: Stripe is not configured (set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET as the ' +
              'server has them)',
          );
        const account = await target();
        // Through the same stores as the server: in production the plan change is pushed to every instance.
        const result = await syncBilling(
          { accounts: stores.accounts, billing: adapters.billing, plans, clock: deps.clock, auditLog: stores.auditLog },
          account,
          OPERATOR_CONTEXT,
        );
        const { before, after } = result;
        print(
          `${after.email} plan ${before.plan} -> ${after.plan}; ${billingSummary(after.billing)}` +
            `${result.reason ? ` (${result.reason})` : ''}`,
          {
            accountId: after.id,
            before: { plan: before.plan, billing: before.billing ?? null },
            after: { plan: after.plan, billing: after.billing ?? null },
            reason: result.reason ?? null,
          },
        );
        return;
      }
      default: {
        const unhandled: never = command;
        throw new Error(`qrm's command table names a command it does not run: ${JSON.stringify(unhandled)}`);
      }
    }
  } finally {
    await adapters.close();
  }
}

/**
 * Embedded mode without QR_DATA_DIR reads ./data from wherever qrm runs: from another directory that would be a new,
 * empty database, and every change made there invisible to the server. Refused unless asked for (--create).
 */
function assertServersDatabase(config: Config, create: boolean): void {
  if (config.mongodbUrl || create || process.env.QR_DATA_DIR !== undefined || config.dataDir === ':memory:') return;
  const file = resolve(databaseFile(config.dataDir));
  if (existsSync(file)) return;
  throw new Error(
    `no database at ${file} (QR_DATA_DIR is unset, so ./data is read from ${process.cwd()}); ` +
      ("run qrm with the server's QR_DATA_DIR, or from the directory the server runs in, or pass --create to " +
        'start a new database here'),
  );
}

run(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`qrm: ${error.message}\n\n${error.usage}\n`);
    process.exitCode = 2;
    return;
  }
  if (error instanceof ApiError || error instanceof ConfigError || error instanceof BackupError)
    process.stderr.write(`qrm: ${error.message}\n`);
  else process.stderr.write(`qrm: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
