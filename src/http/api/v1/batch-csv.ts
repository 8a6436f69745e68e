// CSV batch bodies, read as a stream: a header row naming the generate fields (plus `name`), one item per row, reading stops past the plan's item limit.
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { ApiError, type FieldProblem } from '../../../domain/errors.js';
import { BatchBody, MAX_ITEMS_PER_REQUEST } from './batches.schema.js';

const COLUMNS = ['content', 'type', 'outputFormat', 'size', 'margin', 'errorCorrection', 'darkColor', 'lightColor', 'name'] as const;
const NUMERIC = new Set(['size', 'margin']);
/** One CSV record at most (a quoted field may span lines). */
const MAX_RECORD_BYTES = 16_384;

export interface CsvBatch {
  body: BatchBody;
  /** The CSV line each item came from, by item index (a quoted field may span lines). */
  lines: number[];
}

/** Reading stopped: the body holds more rows than `limit`. */
export class TooManyCsvRows extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} rows`);
  }
}

function cell(column: string, value: string): unknown {
  // Numbers as numbers when they look like them; anything else stays a string for the schema to refuse by name.
  return NUMERIC.has(column) && /^\d{1,6}$/.test(value) ? Number(value) : value;
}

function unreadable(error: unknown): ApiError {
  return new ApiError('invalid_request', `the CSV body cannot be read: ${error instanceof Error ? error.message : String(error)}`);
}

type CsvRecord = { record: Record<string, string>; info: { lines: number } };

/**
 * Parses the CSV as it arrives, a chunk per event-loop turn, and stops reading past `maxItems` rows
 * (TooManyCsvRows) before anything is validated. Every bad line is then reported (`line N.field`); nothing is accepted in part.
 * A failure of `source` (the body over its byte limit) rejects with that failure.
 */
export async function readCsvBatch(source: Readable, maxItems: number | null): Promise<CsvBatch> {
  const limit = Math.min(maxItems ?? MAX_ITEMS_PER_REQUEST, MAX_ITEMS_PER_REQUEST);
  // `to`: the parser itself stops at the first row past the limit, whatever the rest of the chunk holds.
  const parser = parse({ columns: true, bom: true, skip_empty_lines: true, info: true, max_record_size: MAX_RECORD_BYTES, to: limit + 1 });
  let sourceError: unknown;
  source.once('error', (error) => {
    sourceError = error;
    parser.destroy(error);
  });
  source.pipe(parser);
  const records: CsvRecord[] = [];
  try {
    for await (const record of parser as AsyncIterable<CsvRecord>) {
      if (records.length === limit) {
        source.unpipe(parser);
        throw new TooManyCsvRows(limit);
      }
      records.push(record);
    }
  } catch (error) {
    if (error instanceof TooManyCsvRows) throw error;
    if (sourceError !== undefined) throw sourceError;
    throw unreadable(error);
  }
  return checkCsvRecords(records);
}

function checkCsvRecords(records: CsvRecord[]): CsvBatch {
  const header = Object.keys(records[0]?.record ?? {});
  const unknown = header.filter((column) => !(COLUMNS as readonly string[]).includes(column));
  if (unknown.length > 0) {
    throw new ApiError('invalid_request', `unknown CSV columns: ${unknown.join(', ')}; the header row names fields of ${COLUMNS.join(', ')}`, {
      fields: unknown.map((column) => ({ field: `line 1.${column}`, detail: 'unknown column' })),
    });
  }
  const items = records.map(({ record }) =>
    Object.fromEntries(
      Object.entries(record)
        .filter(([, v]) => v !== '')
        .map(([k, v]) => [k, cell(k, v)]),
    ),
  );
  const lines = records.map(({ info }) => info.lines);
  const parsed = BatchBody.safeParse({ items });
  if (!parsed.success) {
    const fields: FieldProblem[] = parsed.error.issues.map((issue) => {
      const [top, index, ...rest] = issue.path.map(String);
      const at = top === 'items' && index !== undefined && lines[Number(index)] !== undefined ? `line ${lines[Number(index)]}` : (top ?? '(body)');
      return { field: [at, ...rest].join('.'), detail: issue.message };
    });
    throw new ApiError(
      'invalid_request',
      fields
        .map((f) => `${f.field}: ${f.detail}`)
        .slice(0, 20)
        .join('; '),
      { fields: fields.slice(0, 1_000) },
    );
  }
  return { body: parsed.data, lines };
}
