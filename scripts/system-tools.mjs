// The system tools the test suites use, each with the Debian package that installs it: one list for .ci/run and the
// preflight.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * What a suite runs, how to tell it is there, and its package. `bin` is looked up on PATH (or taken as an absolute
 * path);
 * `python` is a module imported by Debian's /usr/bin/python3; `library` is a shared object loaded through ctypes.
 */
export const SYSTEM_TOOLS = [
  { name: 'zbarimg', bin: 'zbarimg', package: 'zbar-tools', why: 'reads every image (zbar)' },
  { name: 'ZXingReader', bin: 'ZXingReader', package: 'zxing-cpp-tools', why: 'reads every image (ZXing)' },
  { name: 'dwebp', bin: 'dwebp', package: 'webp', why: 'decodes WebP outputs for the readers' },
  { name: 'rsvg-convert', bin: 'rsvg-convert', package: 'librsvg2-bin', why: 'rasterises SVG outputs for the readers' },
  { name: 'redis-server', bin: 'redis-server', package: 'redis-server', why: 'the real Redis of the Redis suites' },
  { name: 'redis-cli', bin: 'redis-cli', package: 'redis-server', why: 'creates the local Redis Cluster' },
  { name: 'chromium', bin: '/usr/bin/chromium', package: 'chromium', why: 'the browser tests' },
  { name: 'unzip', bin: 'unzip', package: 'unzip', why: 'opens batch archives' },
  { name: 'qrencode', bin: 'qrencode', package: 'qrencode', why: 'an independent encoder' },
  { name: 'libqrencode', library: 'libqrencode.so.4', package: 'libqrencode4', why: 'an independent encoder (ctypes)' },
  { name: 'gs', bin: 'gs', package: 'ghostscript', why: 'renders EPS outputs for the readers' },
  { name: 'pdftoppm', bin: 'pdftoppm', package: 'poppler-utils', why: 'renders PDF outputs for the readers' },
  { name: 'python3', bin: '/usr/bin/python3', package: 'python3', why: "runs Debian's reference libraries" },
  { name: 'segno', python: 'segno', package: 'python3-segno', why: 'an independent encoder and payload formats' },
  { name: 'icalendar', python: 'icalendar', package: 'python3-icalendar', why: 'parses event payloads' },
  { name: 'vobject', python: 'vobject', package: 'python3-vobject', why: 'parses vCard payloads' },
  { name: 'mockupdb', python: 'mockupdb', package: 'python3-mockupdb', why: 'the wire-level MongoDB stand-in' },
  { name: 'mongomock', python: 'mongomock', package: 'python3-mongomock', why: 'the MongoDB stand-in engine' },
];

/** The distinct Debian packages of the list, in its order. */
export function systemPackages() {
  return [...new Set(SYSTEM_TOOLS.map((tool) => tool.package))];
}

function onPath(bin) {
  const candidates = bin.includes('/') ? [bin] : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, bin));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Which of the Python checks fail, in one run of Debian's python3 (each check an import or a ctypes load). */
function failingPythonChecks(checks) {
  if (checks.length === 0) return new Set();
  if (!onPath('/usr/bin/python3')) return new Set(checks.map((check) => check.name));
  const program = [
    'import ctypes, importlib, json, sys',
    'failed = []',
    'for name, module, library in json.loads(sys.argv[1]):',
    '    try:',
    '        ctypes.CDLL(library) if library else importlib.import_module(module)',
    '    except Exception:',
    '        failed.append(name)',
    'print(json.dumps(failed))',
  ].join('\n');
  const argument = JSON.stringify(checks.map((check) => [check.name, check.python ?? null, check.library ?? null]));
  const run = spawnSync('/usr/bin/python3', ['-c', program, argument], { encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) return new Set(checks.map((check) => check.name));
  return new Set(JSON.parse(run.stdout));
}

/** The tools of the list this machine lacks (one python3 run and a PATH look-up per binary). */
export function missingSystemTools() {
  const failing = failingPythonChecks(SYSTEM_TOOLS.filter((tool) => !tool.bin));
  return SYSTEM_TOOLS.filter((tool) => (tool.bin ? !onPath(tool.bin) : failing.has(tool.name)));
}

// `node scripts/system-tools.mjs packages` prints the package list for .ci/run.
if (process.argv[1] && import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'packages') {
  process.stdout.write(`${systemPackages().join(' ')}\n`);
}
