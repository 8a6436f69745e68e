// event content: ISO 8601 times in, an iCalendar VEVENT (RFC 5545) with UTC DTSTART/DTEND out, as ZXing's calendar
// parser reads it.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { structuredContent } from './structured-content.js';
import { foldLine } from './vcard.js';

// An offset (or Z) is required: a time without one names no instant, and UTC is what the code holds.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const text = (max: number) => z.string().min(1, 'must not be empty').max(max);
const instant = z
  .string()
  .max(40)
  .regex(ISO_INSTANT, 'must be an ISO 8601 date-time with Z or an offset, e.g. 2026-11-23T18:30:00+01:00');

export const eventFieldsSchema = z.strictObject({
  summary: text(200).describe('Title of the event.'),
  start: instant.describe('Start, ISO 8601 with Z or an offset; written in UTC.'),
  end: instant.optional().describe('End, ISO 8601 with Z or an offset; not before start.'),
  location: text(200).optional().describe('Where.'),
  description: text(1000).optional().describe('Free text.'),
});
type EventFields = z.infer<typeof eventFieldsSchema>;

/** RFC 5545 §3.3.11: backslash, semicolon and comma escaped, line breaks written as \n. */
const escapeText = (value: string) => value.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '\\n');

function utcStamp(iso: string, field: string): { stamp: string; ms: number } {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw invalidContent(field, 'is not a real date-time');
  const stamp = new Date(ms)
    .toISOString()
    .replace(/\.\d{3}/, '')
    .replace(/[-:]/g, '');
  return { stamp, ms };
}

function buildEvent(fields: EventFields): string {
  const start = utcStamp(fields.start, 'content.start');
  const lines = ['BEGIN:VEVENT', `SUMMARY:${escapeText(fields.summary)}`, `DTSTART:${start.stamp}`];
  if (fields.end !== undefined) {
    const end = utcStamp(fields.end, 'content.end');
    if (end.ms < start.ms) throw invalidContent('content.end', 'must not be before content.start');
    lines.push(`DTEND:${end.stamp}`);
  }
  if (fields.location !== undefined) lines.push(`LOCATION:${escapeText(fields.location)}`);
  if (fields.description !== undefined) lines.push(`DESCRIPTION:${escapeText(fields.description)}`);
  lines.push('END:VEVENT');
  // RFC 5545 §3.1: every content line, the last included, ends with CRLF, and is folded past 75 octets.
  return lines.map((line) => `${foldLine(line)}\r\n`).join('');
}

function isReady(payload: string): boolean {
  return (
    payload.length <= 2000 &&
    payload.startsWith('BEGIN:VEVENT') &&
    payload.trimEnd().endsWith('END:VEVENT') &&
    /\nDTSTART[:;]/.test(payload)
  );
}

export const eventContent = structuredContent('event', eventFieldsSchema, {
  ready: 'a BEGIN:VEVENT … DTSTART … END:VEVENT text',
  fromString: (content) => (isReady(content) ? content : undefined),
  fromFields: buildEvent,
});
