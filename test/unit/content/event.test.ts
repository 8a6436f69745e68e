// event content (iCalendar VEVENT, RFC 5545): UTC times, escaped text, CRLF lines folded past 75 octets (read back by
// python3-icalendar), refusals naming the field.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('event', content);

describe('event content (iCalendar VEVENT)', () => {
  it('writes UTC DTSTART/DTEND and escapes text per RFC 5545', () => {
    expect(
      encode({
        summary: 'Launch; party, v2',
        start: '2026-12-01T18:00:00+01:00',
        end: '2026-12-01T20:30Z',
        location: 'Hall \\ B',
        description: 'Line 1\nLine 2',
      }),
    ).toBe(
      'BEGIN:VEVENT\r\nSUMMARY:Launch\\; party\\, ' +
        'v2\r\nDTSTART:20261201T170000Z\r\nDTEND:20261201T203000Z\r\nLOCATION:Hall \\\\ B\r\nDESCRIPTION:Line ' +
        '1\\nLine 2\r\nEND:VEVENT\r\n',
    );
  });

  it('ends every line with CRLF, folds past 75 octets, and reads back field for field in python3-icalendar', () => {
    const fields = {
      summary: 'Réunion; équipe, Q4 — 会議',
      start: '2026-12-01T18:00:00+01:00',
      end: '2026-12-01T20:30Z',
      location: 'Salle \\ B',
      description: `Line 1\nLine 2, ${'long text with accents é '.repeat(8)}`,
    };
    const payload = encode(fields);
    expect(payload.endsWith('END:VEVENT\r\n')).toBe(true);
    expect(payload.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/); // no bare CR or LF: every line break is CRLF
    expect(payload.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    const script = `
import json, sys, icalendar
raw = sys.stdin.buffer.read()
event = icalendar.Event.from_ical(raw)
print(json.dumps({'summary': str(event['SUMMARY']), 'location': str(event['LOCATION']), 'description': str(event['DESCRIPTION']),
  'start': event.decoded('DTSTART').isoformat(), 'end': event.decoded('DTEND').isoformat(), 'lines': raw.count(b'\\r\\n')}))
`;
    const parsed = JSON.parse(
      execFileSync('/usr/bin/python3', ['-c', script], { input: payload, encoding: 'utf8', timeout: 20_000 }),
    ) as Record<string, unknown>;
    expect(parsed).toEqual({
      summary: fields.summary,
      location: fields.location,
      description: fields.description,
      start: '2026-12-01T17:00:00+00:00',
      end: '2026-12-01T20:30:00+00:00',
      lines: payload.split('\r\n').length - 1,
    });
  });

  it.each([
    [{ summary: 'x', start: '2026-12-01T18:00' }, 'content.start', /ISO 8601/],
    [{ summary: 'x', start: '2026-13-45T18:00Z' }, 'content.start', /real date-time/],
    [{ summary: 'x', start: '2026-12-01T18:00Z', end: '2026-12-01T17:00Z' }, 'content.end', /before/],
    [{ start: '2026-12-01T18:00Z' }, 'content.summary', /required/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});
