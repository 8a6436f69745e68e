// Usage periods: calendar months in UTC, named `YYYY-MM`.

export type PeriodId = string;

export function periodOf(at: Date): PeriodId {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function periodStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The instant the period containing `at` ends and the next one begins. */
export function periodEnd(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** The instant a period named `YYYY-MM` ends. */
export function endOfPeriod(period: PeriodId): Date {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 1));
}
