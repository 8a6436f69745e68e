// geo content: an RFC 5870 geo: URI, geo:<latitude>,<longitude>[,<altitude>], WGS-84 ranges checked.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { trimTrailing } from '../trim-trailing.js';
import { structuredContent } from './structured-content.js';

// geo:<latitude>,<longitude>[,<altitude>], each -?digits[.digits].
const READY = /^geo:(-?\d{1,9}(?:\.\d{1,15})?),(-?\d{1,9}(?:\.\d{1,15})?)(?:,(-?\d{1,9}(?:\.\d{1,15})?))?$/;

export const geoFieldsSchema = z.strictObject({
  latitude: z
    .number()
    .min(-90, 'must be between -90 and 90')
    .max(90, 'must be between -90 and 90')
    .describe('Degrees north, -90 to 90.'),
  longitude: z
    .number()
    .min(-180, 'must be between -180 and 180')
    .max(180, 'must be between -180 and 180')
    .describe('Degrees east, -180 to 180.'),
  altitude: z.number().min(-100000).max(100000000).optional().describe('Metres above the WGS-84 reference ellipsoid.'),
});
type GeoFields = z.infer<typeof geoFieldsSchema>;

/**
 * The shortest spelling that reads back as the same number, never in exponent notation (RFC 5870's grammar has none).
 */
function decimal(value: number): string {
  const shortest = String(value);
  return shortest.includes('e') ? trimTrailing(trimTrailing(value.toFixed(20), '0'), '.') : shortest;
}

function buildGeo(fields: GeoFields): string {
  const parts = [decimal(fields.latitude), decimal(fields.longitude)];
  if (fields.altitude !== undefined) parts.push(decimal(fields.altitude));
  return `geo:${parts.join(',')}`;
}

function checkReady(payload: string): string | undefined {
  const match = READY.exec(payload);
  if (!match) return undefined;
  if (Math.abs(Number(match[1])) > 90) throw invalidContent('content', 'latitude must be between -90 and 90');
  if (Math.abs(Number(match[2])) > 180) throw invalidContent('content', 'longitude must be between -180 and 180');
  return payload;
}

export const geoContent = structuredContent('geo', geoFieldsSchema, {
  ready: 'a geo:<latitude>,<longitude>[,<altitude>] URI',
  fromString: checkReady,
  fromFields: buildGeo,
});
