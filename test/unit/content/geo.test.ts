// geo content (RFC 5870): the RFC's example and segno's geo data, refusals naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';
import { segnoData } from './segno.js';

const encode = (content: unknown) => encodeContent('geo', content);

let segno: Record<string, string>;
beforeAll(() => {
  segno = segnoData([
    `out['geo_rfc'] = h.make_geo_data(13.4125, 103.8667)`,
    `out['geo_south'] = h.make_geo_data(-33.8568, 151.2153)`,
  ]);
});

describe('geo content (RFC 5870)', () => {
  it("reproduces RFC 5870's example and segno's geo data", () => {
    expect(encode({ latitude: 13.4125, longitude: 103.8667 })).toBe('geo:13.4125,103.8667');
    expect(encode({ latitude: 13.4125, longitude: 103.8667 })).toBe(segno.geo_rfc);
    expect(encode({ latitude: -33.8568, longitude: 151.2153 })).toBe(segno.geo_south);
    expect(encode({ latitude: 48.201, longitude: 16.3695, altitude: 183 })).toBe('geo:48.201,16.3695,183');
    expect(encode('geo:48.2010,16.3695,183')).toBe('geo:48.2010,16.3695,183');
    expect(encode({ latitude: 1e-7, longitude: 0 })).toBe('geo:0.0000001,0');
  });

  it.each([
    [{ latitude: 91, longitude: 0 }, 'content.latitude', /-90 and 90/],
    [{ latitude: 0, longitude: -180.5 }, 'content.longitude', /-180 and 180/],
    [{ latitude: 0 }, 'content.longitude', /required/],
    ['geo:91,0', 'content', /latitude/],
    ['geo:1;2', 'content', /geo:/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});
