// One page of a list, newest first, and the opaque cursor that names the position after its last item.
import { invalidField } from './errors.js';

export const PAGE_SIZE = { default: 20, max: 100 } as const;

export interface Page<T> {
  items: T[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

export interface PageQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** Where an item stands in a newest-first list: by creation time, then by id. */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

const CURSOR = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/;

export function encodeCursor(item: ListPosition): string {
  return Buffer.from(`${item.createdAt.getTime()}.${item.id}`).toString('base64url');
}

/** 400 invalid_request on `cursor` for anything this API did not give out. */
export function decodeCursor(cursor: string): ListPosition {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidField('cursor', 'not a cursor this API gave out');
  return { createdAt: new Date(Number(match[1])), id: match[2]! };
}

/** Where an item stands in a list ordered by a count (a code's scans), then by id. */
export interface CountPosition {
  scans: number;
  id: string;
}

const COUNT_CURSOR = /^s(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/;

export function encodeCountCursor(item: CountPosition): string {
  return Buffer.from(`s${item.scans}.${item.id}`).toString('base64url');
}

/**
 * 400 invalid_request on `cursor` for anything but a cursor of a list ordered by count (a cursor of another order
 * included).
 */
export function decodeCountCursor(cursor: string): CountPosition {
  const match = COUNT_CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidField('cursor', 'not a cursor this API gave out for this sort');
  return { scans: Number(match[1]), id: match[2]! };
}

/** Newest first; ties by id, descending, so every item has one place. */
export function newestFirst(a: ListPosition, b: ListPosition): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * A page of a list held whole (lists a plan bounds: logos, designs, domains, webhooks, signing keys). The cursor is
 * a position, not an index, so an item deleted between pages neither repeats nor skips another.
 */
export function pageOf<T extends ListPosition>(all: readonly T[], query: PageQuery): Page<T> {
  const limit = query.limit ?? PAGE_SIZE.default;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const sorted = [...all].sort(newestFirst);
  const rest = after === undefined ? sorted : sorted.filter((item) => newestFirst(after, item) < 0);
  const items = rest.slice(0, limit);
  return { items, nextCursor: rest.length > limit ? encodeCursor(items.at(-1)!) : null };
}

/**
 * A page of a list read from the store one item past `limit`, in list order: that extra item, when it came, says
 * another page follows, which starts after the page's last item.
 */
export function pageOfReadAhead<T>(read: readonly T[], limit: number, positionOf: (item: T) => ListPosition): Page<T> {
  const items = read.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: read.length > limit && last ? encodeCursor(positionOf(last)) : null };
}
