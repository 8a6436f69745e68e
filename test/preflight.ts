// Vitest global setup: every system tool the suites use is checked before any suite runs, and installed where it can
// be.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { missingSystemTools, type SystemTool } from '../scripts/system-tools.mjs';

type Tool = SystemTool;

/** Root with apt-get can install what is missing, as .ci/run does; anyone else is told the one command to run. */
function canInstall(): boolean {
  return process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && process.env.QRM_PREFLIGHT_INSTALL !== '0';
}

function install(packages: string[]): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const options = { stdio: 'inherit' as const, env, timeout: 15 * 60_000 };
  process.stderr.write(`preflight: installing ${packages.join(' ')} with apt-get\n`);
  if (spawnSync('apt-get', ['update', '-qq'], options).status !== 0) return false;
  const args = ['install', '-y', '-qq', '--no-install-recommends', ...packages];
  return spawnSync('apt-get', args, options).status === 0;
}

function packagesOf(tools: Tool[]): string[] {
  return [...new Set(tools.map((tool) => tool.package))];
}

function message(missing: Tool[]): string {
  const lines = missing.map((tool) => `  - ${tool.name} (${tool.why}): Debian package ${tool.package}`);
  return [
    `The test suites need ${missing.length} system tool(s) this machine lacks:`,
    ...lines,
    'Install them with:',
    `  sudo apt-get install --no-install-recommends ${packagesOf(missing).join(' ')}`,
  ].join('\n');
}

export default function preflight(): void {
  let missing = missingSystemTools();
  if (missing.length > 0 && canInstall() && install(packagesOf(missing))) missing = missingSystemTools();
  if (missing.length === 0) return;
  // One message and out: a thrown error would bury it under the runner's stack trace.
  process.stderr.write(`\n${message(missing)}\n\n`);
  process.exit(1);
}
