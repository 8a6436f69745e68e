// Polls a condition, bounded in time and in attempts, and says what it was waiting for when it gives up.
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  const maxAttempts = Math.ceil(timeoutMs / intervalMs) + 1;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
}
