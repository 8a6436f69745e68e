// Schemas of GET /stats, the account's scans across its codes: the query as validated and the answer as serialised.
import { z } from 'zod';
import { DEVICE_CLASSES } from '../../../domain/scan.js';
import { ACCOUNT_STATS_INTERVALS, TOP_CODES } from '../../../services/account-stats.js';
import { HOURLY_MAX_DAYS } from '../../../services/scan-stats.js';
import { StatsQuery } from './codes.schema.js';

const INTERVAL_NOTE = `\`day\` (default) or \`hour\` (at most ${HOURLY_MAX_DAYS} days): the series' steps, UTC.`;
const COUNTRIES_NOTE = 'Scans per country over every code (ISO 3166-1 alpha-2; `other`: not placed).';

export const AccountStatsQuery = StatsQuery.extend({
  interval: z.enum(ACCOUNT_STATS_INTERVALS).optional().describe(INTERVAL_NOTE),
});

export const AccountStatsSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    interval: z.enum(ACCOUNT_STATS_INTERVALS),
    totals: z.object({
      scans: z.number().int(),
      uniqueScanners: z
        .number()
        .int()
        .describe("Sum of each code's daily unique scanners: one person scanning two codes counts in both."),
      bots: z.number().int().describe('Scans by crawlers and link previews, counted apart: never in `scans`.'),
      codesScanned: z.number().int().describe('Codes with at least one scan in the range.'),
    }),
    series: z
      .array(
        z.object({
          at: z.string().describe('Start of the day or hour, ISO 8601 UTC.'),
          scans: z.number().int(),
          uniqueScanners: z.number().int().describe("A day's unique scanners; an hour's: first seen that day in it."),
        }),
      )
      .describe('Every day (or hour, with `interval=hour`) of the range, oldest first, zeros included.'),
    topCodes: z
      .array(z.object({ codeId: z.string(), slug: z.string(), name: z.string().nullable(), scans: z.number().int() }))
      .describe(`The ${TOP_CODES} codes with the most scans in the range, most first; codes without scans left out.`),
    devices: z.object(
      Object.fromEntries(DEVICE_CLASSES.map((d) => [d, z.number().int()])) as Record<
        (typeof DEVICE_CLASSES)[number],
        z.ZodNumber
      >,
    ),
    countries: z.record(z.string(), z.number().int()).describe(COUNTRIES_NOTE),
  })
  .meta({ id: 'AccountStats' });
