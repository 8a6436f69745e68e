// The test preflight: on a machine without the readers, `vitest` stops at once with one message naming each tool.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { systemPackages } from '../../scripts/system-tools.mjs';

describe('the preflight before any suite', () => {
  it('names each missing tool and the one command that installs it, without a traceback', () => {
    const vitest = 'node_modules/vitest/vitest.mjs';
    const env = { ...process.env, PATH: '/nonexistent', QRM_PREFLIGHT_INSTALL: '0' };
    const run = spawnSync(process.execPath, [vitest, 'run', 'test/unit/content/event.test.ts'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('zbarimg (reads every image (zbar)): Debian package zbar-tools');
    expect(run.stderr).toContain('ZXingReader');
    expect(run.stderr).toMatch(/apt-get install --no-install-recommends zbar-tools zxing-cpp-tools webp /);
    expect(run.stderr).not.toMatch(/Traceback|No module named/);
    expect(run.stdout).not.toMatch(/Test Files/);
  });

  it('lists every package .ci/run installs', () => {
    expect(systemPackages()).toEqual(expect.arrayContaining(['zbar-tools', 'python3-icalendar', 'libqrencode4']));
  });
});
