// qrm's help against its command table (what the parser and the dispatcher read): `qrm --help` and each
// `qrm <command> --help` name every command and option qrm takes; anything else exits 2 saying what was wrong.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { optionsOf, QRM_COMMANDS, QRM_OPTIONS, type QrmCommand } from '../../src/entries/qrm-commands.js';

const exec = promisify(execFile);
const QRM = resolve('src/entries/qrm.ts');
const TSX = resolve('node_modules/tsx/dist/cli.mjs');
const OPTIONS = Object.keys(QRM_OPTIONS);

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

function qrm(args: string[]): Promise<Exit> {
  return exec(process.execPath, [TSX, QRM, ...args], { timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

/** Runs `each` over the commands a few at a time: each run is a Node process starting tsx. */
async function forEachCommand<T>(each: (command: QrmCommand) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < QRM_COMMANDS.length; i += 4) {
    results.push(...(await Promise.all(QRM_COMMANDS.slice(i, i + 4).map(each))));
  }
  return results;
}

/** Every `--option` a help text names. */
function optionsNamed(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((match) => match[1]!))].sort();
}

describe('qrm --help', () => {
  it('lists every command and every option the parser takes', async () => {
    const help = await qrm(['--help']);
    expect(help.code).toBe(0);
    for (const command of QRM_COMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${command.name}( |$)`, 'm'));
    expect(optionsNamed(help.stdout)).toEqual([...OPTIONS].sort());
  }, 60_000);

  it("gives each command's help with exactly the options that command takes", async () => {
    const helps = await forEachCommand(async (command) => ({
      command,
      exit: await qrm([...command.name.split(' '), '--help']),
    }));
    for (const { command, exit } of helps) {
      expect(exit.code, command.name).toBe(0);
      expect(exit.stdout.startsWith(`usage: qrm ${command.name}`), exit.stdout).toBe(true);
      expect(optionsNamed(exit.stdout), command.name).toEqual([...optionsOf(command)].sort());
    }
  }, 180_000);

  it('refuses, with exit 2 and the help, an option a command does not take', async () => {
    const refusals = await forEachCommand(async (command) => {
      const foreign = OPTIONS.find((option) => !optionsOf(command).includes(option as never))!;
      return { command, foreign, exit: await qrm([...command.name.split(' '), `--${foreign}`, 'x']) };
    });
    for (const { command, foreign, exit } of refusals) {
      expect(exit.code, command.name).toBe(2);
      expect(exit.stderr).toContain(`qrm: ${command.name} does not take --${foreign}`);
      expect(exit.stderr).toContain(`usage: qrm ${command.name}`);
    }
  }, 180_000);

  it('refuses an unknown command and an unknown option with exit 2, naming them', async () => {
    const [command, option] = await Promise.all([qrm(['accounts', 'delete']), qrm(['plans', '--verbose'])]);
    expect(command).toMatchObject({ code: 2, stdout: '' });
    expect(command.stderr).toMatch(/^qrm: unknown command 'accounts delete'\n\nusage: qrm <command>/);
    expect(option).toMatchObject({ code: 2, stdout: '' });
    expect(option.stderr).toMatch(/^qrm: unknown option '--verbose'\n\nusage: qrm <command>/);
  }, 60_000);

  it('is the table docs/cli.md prints: every command, and the exit status', () => {
    const page = readFileSync('docs/cli.md', 'utf8');
    for (const command of QRM_COMMANDS) expect(page).toContain(`| \`${command.name}`);
    expect(page).toContain('2 on a usage error');
  });
});
