// CSV batch bodies, read as a stream: a header row naming the generate fields (plus `name`; logo.id, frame.text,
// dynamic.target for the nested ones), one item per row, reading stops past the plan's item limit.
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { DESIGN_FIELDS } from '../../../domain/design.js';
import { ApiError, type FieldProblem } from '../../../domain/errors.js';
import { BatchBody, MAX_ITEMS_PER_REQUEST } from './batches.schema.js';

/** A design field that is an object is one column per member, by its dotted path. */
const NESTED_DESIGN_COLUMNS = { logo: ['logo.id', 'logo.scale'], frame: ['frame.text', 'frame.color'] } as const;

/** The generate fields as columns (the design's fields among them), a saved design's id, and the item's name. */
const COLUMNS = [
  'content',
  'type',
  'outputFormat',
  ...DESIGN_FIELDS.flatMap((field) => (field === 'logo' || field === 'frame' ? NESTED_DESIGN_COLUMNS[field] : field)),
  'eci',
  'design',
  'name',
  // A row with dynamic.target makes a dynamic code (content and type left empty); rules and utm need the JSON body.
  'dynamic.target',
  'dynamic.name',
  'dynamic.expiresAt',
  'dynamic.maxScans',
  'dynamic.expiredTarget',
  'dynamic.forwardQuery',
] as const;
const NUMERIC = new Set(['size', 'margin', 'dpi']);
const COUNT = new Set(['dynamic.maxScans']);
const DECIMAL = new Set(['logo.scale']);
/** sizeMm: up to 1000, decimals allowed (25.4). */
const MILLIMETRES = new Set(['sizeMm']);
const BOOLEAN = new Set(['eci', 'dynamic.forwardQuery']);
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
  // Numbers and booleans as such when they look like them; anything else stays a string for the schema to refuse by
  // name.
  if (NUMERIC.has(column) && /^\d{1,6}$/.test(value)) return Number(value);
  if (COUNT.has(column) && /^\d{1,12}$/.test(value)) return Number(value);
  if (DECIMAL.has(column) && /^\d{1,2}(?:\.\d{1,6})?$/.test(value)) return Number(value);
  if (MILLIMETRES.has(column) && /^\d{1,4}(?:\.\d{1,3})?$/.test(value)) return Number(value);
  if (BOOLEAN.has(column) && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** A row's cells as a generate body: `logo.id` and `logo.scale` become `logo: {id, scale}`. */
function itemOf(record: Record<string, string>): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(record)) {
    if (value === '') continue;
    const [outer, inner] = column.split('.');
    if (inner === undefined) item[column] = cell(column, value);
    else item[outer!] = { ...(item[outer!] as Record<string, unknown> | undefined), [inner]: cell(column, value) };
  }
  return item;
}

function unreadable(error: unknown): ApiError {
  return new ApiError(
    'invalid_request',
    `the CSV body cannot be read: ${error instanceof Error ? error.message : String(error)}`,
  );
}

type CsvRecord = { record: Record<string, string>; info: { lines: number } };

/**
 * Parses the CSV as it arrives, a chunk per event-loop turn, and stops reading past `maxItems` rows
 * (TooManyCsvRows) before anything is validated. Every bad line is then reported (`line N.field`); nothing is accepted
 * in part.
 * A failure of `source` (the body over its byte limit) rejects with that failure.
 */
export async function readCsvBatch(source: Readable, maxItems: number | null): Promise<CsvBatch> {
  const limit = Math.min(maxItems ?? MAX_ITEMS_PER_REQUEST, MAX_ITEMS_PER_REQUEST);
  // `to`: the parser itself stops at the first row past the limit, whatever the rest of the chunk holds.
  const parser = parse({
    columns: true,
    bom: true,
    skip_empty_lines: true,
    info: true,
    max_record_size: MAX_RECORD_BYTES,
    to: limit + 1,
  });
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
    throw new ApiError(
      'invalid_request',
      `unknown CSV columns: ${unknown.join(', ')}; the header row names fields of ${COLUMNS.join(', ')}`,
      {
        fields: unknown.map((column) => ({ field: `line 1.${column}`, detail: 'unknown column' })),
      },
    );
  }
  const items = records.map(({ record }) => itemOf(record));
  const lines = records.map(({ info }) => info.lines);
  const parsed = BatchBody.safeParse({ items });
  if (!parsed.success) {
    const fields: FieldProblem[] = parsed.error.issues.map((issue) => {
      const [top, index, ...rest] = issue.path.map(String);
      const at =
        top === 'items' && index !== undefined && lines[Number(index)] !== undefined
          ? `line ${lines[Number(index)]}`
          : (top ?? '(body)');
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
