// Makes a test app's clock run fast from mid-month: a test's requests spread over many app-seconds, so fault tests
// never meet the per-key burst limit.
/**
 * The test app's clock (TestApp.clock) now reads a time running `speed` times faster than real time, from the 15th of
 * this month.
 */
export function runClockFast(clock: { now: Date }, speed = 100): void {
  const today = new Date();
  const base = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 15, 12);
  const started = performance.now();
  // At 100x a test of a minute spans 100 app-minutes, at 1000x 17 app-hours: either way it stays inside the month.
  Object.defineProperty(clock, 'now', {
    get: () => new Date(base + (performance.now() - started) * speed),
    configurable: true,
  });
}
