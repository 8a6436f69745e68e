// Vitest configuration: every suite under test/, run in forked processes so native modules and worker pools stay
// isolated.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Checks (and, as root with apt, installs) the system tools the suites use before any suite runs.
    globalSetup: ['test/preflight.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
