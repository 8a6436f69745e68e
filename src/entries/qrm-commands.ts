// qrm's command table: every command, the options it takes and its help; the parser, the dispatcher and --help read it.
import type { ParseArgsConfig } from 'node:util';

export const QRM_OPTIONS = {
  email: { type: 'string' },
  account: { type: 'string' },
  plan: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  expires: { type: 'string' },
  id: { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  slug: { type: 'string' },
  hostname: { type: 'string' },
  reason: { type: 'string' },
  'scan-privacy': { type: 'string' },
  json: { type: 'boolean', default: false },
  create: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export type QrmOption = keyof typeof QRM_OPTIONS;

/** Options every command takes. */
export const EVERY_COMMAND_TAKES = ['json', 'help'] as const satisfies readonly QrmOption[];

/** An account named by its e-mail, or by its id where an e-mail is shared by several sign-in identities. */
const ACCOUNT = ['email', 'account'] as const satisfies readonly QrmOption[];

/** `synopsis` shows every option the command takes but those told in the notes below it (`OPTION_NOTES`). */
export const QRM_COMMANDS = [
  {
    name: 'accounts create',
    synopsis: '--email E [--plan P]',
    summary: "create an account (idempotent; default: the catalogue's default plan)",
    options: ['email', 'plan', 'create'],
  },
  {
    name: 'accounts plan',
    synopsis: '--email E --plan P',
    summary: "change an account's plan",
    options: [...ACCOUNT, 'plan', 'create'],
  },
  {
    name: 'accounts privacy',
    synopsis: '--email E [--scan-privacy L]',
    summary: 'show, or set, how much of a scan is kept: country (default), city, none',
    options: [...ACCOUNT, 'scan-privacy', 'create'],
  },
  {
    name: 'plans',
    synopsis: '',
    summary: 'list the plans (QR_PLANS_FILE, or the built-in ones) and their accounts',
    options: ['create'],
  },
  {
    name: 'keys create',
    synopsis: '--email E [--name N] [--scopes S,S] [--expires ISO]',
    summary: 'create a key (default: every scope, no expiry); prints the secret alone on stdout',
    options: [...ACCOUNT, 'name', 'scopes', 'expires', 'create'],
  },
  {
    name: 'keys list',
    synopsis: '--email E',
    summary: 'list keys (hint, status, scopes, expiry, created, last used)',
    options: [...ACCOUNT, 'create'],
  },
  {
    name: 'keys revoke',
    synopsis: '--email E --id KEY_ID',
    summary: 'revoke a key at once',
    options: [...ACCOUNT, 'id', 'create'],
  },
  {
    name: 'usage',
    synopsis: '--email E',
    summary: "this month's requests and QRs against the plan",
    options: [...ACCOUNT, 'create'],
  },
  {
    name: 'backup',
    synopsis: '--to FILE',
    summary: 'consistent copy of the embedded database, while servers run',
    options: ['to'],
  },
  {
    name: 'restore',
    synopsis: '--from FILE',
    summary: 'put a backup back (refused while a server or worker has it open)',
    options: ['from'],
  },
  {
    name: 'redis migrate-keys',
    synopsis: '',
    summary: "move the earlier releases' Redis keys (month counters, QR lists, scan webhooks) to today's layout",
    options: [],
  },
  {
    name: 'codes list',
    synopsis: '--email E',
    summary: "list an account's dynamic codes (slug, status, target)",
    options: [...ACCOUNT, 'create'],
  },
  {
    name: 'codes disable',
    synopsis: '--slug S --reason R',
    summary: 'disable a dynamic code for abuse: it answers 410, its owner cannot re-enable it',
    options: ['slug', 'reason', 'create'],
  },
  {
    name: 'domains list',
    synopsis: '--email E',
    summary: "list an account's custom domains (hostname, status, verification URL)",
    options: [...ACCOUNT, 'create'],
  },
  {
    name: 'domains verify',
    synopsis: '--hostname H',
    summary: 'activate a pending custom domain you vouch for (no check is made)',
    options: ['hostname', 'create'],
  },
  {
    name: 'billing show',
    synopsis: '--email E',
    summary: "the account's billing: Stripe customer, subscription, status, period end",
    options: [...ACCOUNT, 'create'],
  },
  {
    name: 'billing sync',
    synopsis: '--email E',
    summary: "re-read the account's subscription from Stripe and apply it (repairs a lost webhook)",
    options: [...ACCOUNT, 'create'],
  },
] as const satisfies readonly { name: string; synopsis: string; summary: string; options: readonly QrmOption[] }[];

export type QrmCommand = (typeof QRM_COMMANDS)[number];
export type QrmCommandName = QrmCommand['name'];

/** The options a command's synopsis leaves to a note. */
const OPTION_NOTES: Partial<Record<QrmOption, string>> = {
  account: '--account ID may replace --email wherever an e-mail is shared by several sign-in identities.',
  create: '--create starts a new embedded database when none is found at ./data (QR_DATA_DIR unset).',
  json: '--json prints machine-readable output.',
  help: '-h, --help prints this help (qrm <command> --help: that command alone).',
};

function notes(options: readonly QrmOption[]): string {
  return options.flatMap((option) => (OPTION_NOTES[option] ? [`  ${OPTION_NOTES[option]}`] : [])).join('\n');
}

/** The command as typed: its name, then its synopsis when it has one. */
function invocation(command: QrmCommand): string {
  return [command.name, command.synopsis].filter(Boolean).join(' ');
}

function line(command: QrmCommand): string {
  return `  ${invocation(command)}\n      ${command.summary}`;
}

export const QRM_USAGE = [
  'usage: qrm <command> [options]',
  '',
  ...QRM_COMMANDS.map(line),
  '',
  notes(['account', 'create', ...EVERY_COMMAND_TAKES]),
  '  Exit status: 0 done, 1 the command failed, 2 a usage error (a command or option qrm does not take, a bad value).',
].join('\n');

export function commandNamed(name: string): QrmCommand | undefined {
  return QRM_COMMANDS.find((command) => command.name === name);
}

export function commandUsage(command: QrmCommand): string {
  return [`usage: qrm ${invocation(command)}`, `  ${command.summary}`, '', notes(optionsOf(command))].join('\n');
}

/** Every option the command takes. */
export function optionsOf(command: QrmCommand): readonly QrmOption[] {
  return [...command.options, ...EVERY_COMMAND_TAKES];
}
