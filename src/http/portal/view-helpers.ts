// Formatting helpers the templates call (as `it.h`): dates, numbers and percentages, all plain text (escaped by Eta).

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

export const viewHelpers = {
  /** `2026-03-01 00:00 UTC`: one unambiguous form for every reader. */
  dateTime(value: Date | undefined): string {
    if (!value) return '—';
    return (
      `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())} ` +
      `${pad(value.getUTCHours())}:${pad(value.getUTCMinutes())} UTC`
    );
  },
  date(value: Date): string {
    return `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}`;
  },
  number(value: number): string {
    return value.toLocaleString('en-US');
  },
  /** A plan figure: null is unlimited. */
  limit(value: number | null): string {
    return value === null ? 'unlimited' : value.toLocaleString('en-US');
  },
  percent(used: number, limit: number): number {
    return limit <= 0 ? 100 : Math.min(100, Math.round((used / limit) * 100));
  },
  /** Long payloads are cut for tables; the full text stays in the title attribute. */
  truncate(text: string, max = 60): string {
    return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
  },
};
