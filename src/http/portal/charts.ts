// The portal's charts as data: each one's rows are the table printed beside it and what portal charts.js draws
// (Chart.js).
import { DEVICE_CLASSES, UNKNOWN_COUNTRY, type DeviceClass } from '../../domain/scan.js';

/** `columns`: bars per row in time order; `bars`: horizontal bars, one per category. */
export type ChartKind = 'columns' | 'bars';

export interface ChartFigure {
  /** Unique on its page: the figure's id is `chart-<id>`. */
  id: string;
  kind: ChartKind;
  title: string;
  /** The table's column headings: what a row is, and what its number counts. */
  rowHeading: string;
  valueHeading: string;
  rows: Array<{ label: string; value: number }>;
  /** The drawing's accessible name: what it shows in one sentence (the table beside it has every figure). */
  summary: string;
}

const DEVICE_NAMES: Record<DeviceClass, string> = {
  ios: 'iOS',
  android: 'Android',
  desktop: 'Desktop',
  other: 'Other',
};

export function scansOverTime(
  id: string,
  title: string,
  days: ReadonlyArray<{ day: string; scans: number }>,
): ChartFigure {
  const total = days.reduce((sum, d) => sum + d.scans, 0);
  const peak = Math.max(0, ...days.map((d) => d.scans));
  return {
    id,
    kind: 'columns',
    title,
    rowHeading: 'Day (UTC)',
    valueHeading: 'Scans',
    rows: days.map((d) => ({ label: d.day, value: d.scans })),
    summary:
      `Scans per day from ${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}: ${total} in total, at most ${peak}` +
      ` a day.`,
  };
}

export function devicesChart(id: string, devices: Record<DeviceClass, number>): ChartFigure {
  return {
    id,
    kind: 'bars',
    title: 'Scans by device',
    rowHeading: 'Device',
    valueHeading: 'Scans',
    rows: DEVICE_CLASSES.map((device) => ({ label: DEVICE_NAMES[device], value: devices[device] })),
    summary: `Scans by device: ${DEVICE_CLASSES.map((d) => `${DEVICE_NAMES[d]} ${devices[d]}`).join(', ')}.`,
  };
}

/** Countries shown by name: the rest of the countries beyond these are summed on one row. */
export const CHART_TOP_COUNTRIES = 10;
const COUNTRY_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

function countryName(country: string): string {
  return country === UNKNOWN_COUNTRY ? 'Not placed' : `${COUNTRY_NAMES.of(country) ?? country} (${country})`;
}

/** The countries with the most scans, named in English; `null` when no scan was counted (no chart then). */
export function countriesChart(id: string, countries: Record<string, number>): ChartFigure | null {
  const entries = Object.entries(countries)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return null;
  const shown = entries.slice(0, CHART_TOP_COUNTRIES);
  const rest = entries.slice(CHART_TOP_COUNTRIES).reduce((sum, [, n]) => sum + n, 0);
  const rows = shown.map(([country, value]) => ({ label: countryName(country), value }));
  if (rest > 0) rows.push({ label: 'Other countries', value: rest });
  return {
    id,
    kind: 'bars',
    title: 'Scans by country',
    rowHeading: 'Country',
    valueHeading: 'Scans',
    rows,
    summary: `Scans by country: ${rows.map((row) => `${row.label} ${row.value}`).join(', ')}.`,
  };
}

/** A page's scans as charts: per day (`title` says of what), by device, and by country when any was placed. */
export function scanCharts(
  title: string,
  stats: {
    series: ReadonlyArray<{ at: string; scans: number }>;
    devices: Record<DeviceClass, number>;
    countries: Record<string, number>;
  },
): ChartFigure[] {
  const days = stats.series.map((point) => ({ day: point.at.slice(0, 10), scans: point.scans }));
  const charts = [
    scansOverTime('scans', title, days),
    devicesChart('devices', stats.devices),
    countriesChart('countries', stats.countries),
  ];
  return charts.filter((chart) => chart !== null);
}

/** Arms named by where they send scans; `null` when no split sent a scan (no chart then). */
export function armsChart(
  id: string,
  arms: Record<string, number>,
  armTarget: (arm: string) => string | undefined,
): ChartFigure | null {
  const entries = Object.entries(arms).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return null;
  const rows = entries.map(([arm, value]) => ({
    label: `${arm}${armTarget(arm) ? ` → ${armTarget(arm)}` : ''}`,
    value,
  }));
  return {
    id,
    kind: 'bars',
    title: 'Scans by split arm',
    rowHeading: 'Arm',
    valueHeading: 'Scans',
    rows,
    summary: `Scans by split arm: ${entries.map(([arm, n]) => `${arm} ${n}`).join(', ')}.`,
  };
}

/** This month's requests and QR codes against the plan's limits (an unlimited figure shows what was used only). */
export function usageChart(
  id: string,
  meters: ReadonlyArray<{ label: string; used: number; limit: number | null }>,
): ChartFigure {
  const rows = meters.flatMap((m) => [
    { label: `${m.label}: used`, value: m.used },
    ...(m.limit === null ? [] : [{ label: `${m.label}: left`, value: Math.max(0, m.limit - m.used) }]),
  ]);
  return {
    id,
    kind: 'bars',
    title: 'Usage against your plan this month',
    rowHeading: 'Meter',
    valueHeading: 'Count',
    rows,
    summary:
      `Usage this month: ` +
      `${meters.map((m) => `${m.label} ${m.used} of ${m.limit === null ? 'unlimited' : m.limit}`).join(', ')}.`,
  };
}
