// CSV batch bodies: a header row naming the generate fields (plus `name`), one item per row, checked by the same schema as JSON.
import { parse } from 'csv-parse/sync';
import { ApiError, type FieldProblem } from '../../../domain/errors.js';
import { BatchBody, MAX_ITEMS_PER_REQUEST } from './batches.schema.js';

const COLUMNS = ['content', 'type', 'outputFormat', 'size', 'margin', 'errorCorrection', 'darkColor', 'lightColor', 'name'] as const;
const NUMERIC = new Set(['size', 'margin']);

export interface CsvBatch {
  body: BatchBody;
  /** The CSV line each item came from, by item index (a quoted field may span lines). */
  lines: number[];
}

function cell(column: string, value: string): unknown {
  // Numbers as numbers when they look like them; anything else stays a string for the schema to refuse by name.
  return NUMERIC.has(column) && /^\d{1,6}$/.test(value) ? Number(value) : value;
}

/** Parses and checks the whole CSV; every bad line is reported (`line N.field`), nothing is accepted in part. */
export function parseCsvBatch(text: string, webhookUrl: string | undefined): CsvBatch {
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parse(text, { columns: true, bom: true, skip_empty_lines: true, info: true, max_record_size: 16_384, to: MAX_ITEMS_PER_REQUEST + 1 });
  } catch (error) {
    throw new ApiError('invalid_request', `the CSV body cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
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
  const parsed = BatchBody.safeParse(webhookUrl === undefined ? { items } : { items, webhookUrl });
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
