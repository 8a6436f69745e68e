// What the scan suites share: the app under test with a way to settle its recorded scans, and a code's stats after.
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { codesApi } from './codes.js';

export interface ScanSuiteContext {
  t: TestApp;
  /** Brings recorded scans to the stats (flush, and the rollup in Redis mode). */
  settle(): Promise<void>;
}

/** The parts of GET …/codes/{id}/stats the scan suites read. */
export interface ScanStatsJson {
  totals: { scans: number; uniqueScanners: number; bots: number };
  series: Array<{ at: string; scans: number; uniqueScanners: number }>;
  countries: Record<string, number>;
  devices: Record<string, number>;
  arms: Record<string, number>;
  languages: Array<{ language: string; scans: number }>;
}

/** A code's stats once the scans recorded so far are settled; fails unless the answer is a 200. */
export async function settledStats(context: ScanSuiteContext, key: string, id: string): Promise<ScanStatsJson> {
  await context.settle();
  const res = await codesApi(context.t.app, key).stats(id);
  expect(res.statusCode).toBe(200);
  return res.json() as ScanStatsJson;
}
