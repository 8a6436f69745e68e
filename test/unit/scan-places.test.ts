// Where a scan comes from: the shipped country database read offline, a city database (GEOIP_CITY_DB) for region and
// city, and rules by country, region and city.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MmdbGeoLookup, shippedCountryDatabase } from '../../src/adapters/geo/geo-lookup.mmdb.js';
import { writeCityDatabase } from '../helpers/mmdb-city.js';
import { NO_ROUTING, scanRoute, type ScanContext } from '../../src/domain/code-routing.js';

const shipped = await MmdbGeoLookup.open(shippedCountryDatabase());

describe('the shipped country database', () => {
  const geo = shipped;

  it('places public IPv4 and IPv6 addresses, an IPv4-mapped IPv6 one as its IPv4', () => {
    expect(geo.placeOf('200.147.67.142')).toEqual({ country: 'BR' });
    expect(geo.placeOf('8.8.8.8')).toEqual({ country: 'US' });
    expect(geo.placeOf('2001:4860:4860::8888')).toEqual({ country: 'US' });
    expect(geo.placeOf('::ffff:200.147.67.142')).toEqual({ country: 'BR' });
  });

  it('places no private, loopback or malformed address', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '::1', 'not an address', ''])
      expect(geo.placeOf(address)).toBeNull();
  });
});

describe('a city database beside the country one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qrm-city-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'city.mmdb');
  writeCityDatabase(file, {
    '200.147.67.0/24': { country: 'BR', region: 'São Paulo', city: 'São Paulo' },
    '8.8.8.0/24': { country: 'US', region: 'California', city: 'Mountain View' },
    '81.2.69.0/24': { country: 'GB' },
  });
  let geo: MmdbGeoLookup;
  beforeAll(async () => {
    geo = await MmdbGeoLookup.open(shippedCountryDatabase(), file);
  });

  it('gives the region and city it knows, an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(geo.placeOf('200.147.67.142')).toEqual({ country: 'BR', region: 'São Paulo', city: 'São Paulo' });
    expect(geo.placeOf('8.8.8.8')).toEqual({ country: 'US', region: 'California', city: 'Mountain View' });
    expect(geo.placeOf('::ffff:8.8.4.4')).toEqual({ country: 'US' });
    expect(geo.placeOf('::ffff:8.8.8.9')).toEqual({ country: 'US', region: 'California', city: 'Mountain View' });
  });

  it('gives the country alone where it names no city, else falls back to the shipped database', () => {
    expect(geo.placeOf('81.2.69.160')).toEqual({ country: 'GB' });
    expect(geo.placeOf('1.1.1.1')).toEqual(shipped.placeOf('1.1.1.1'));
    expect(geo.placeOf('2001:4860:4860::8888')).toEqual({ country: 'US' });
    expect(geo.placeOf('10.1.2.3')).toBeNull();
  });
});

describe('rules by place', () => {
  const scanFrom = (place: ScanContext['place']): ScanContext => ({
    at: new Date(),
    device: 'ios',
    acceptLanguage: undefined,
    query: '',
    place,
    splitPoint: () => 0,
  });
  const targetOf = (target: string, scan: ScanContext) => scanRoute(routing, target, scan).decorated();
  const routing = {
    ...NO_ROUTING,
    rules: [
      { if: { city: ['são paulo'] }, target: 'https://example.com/sampa' },
      { if: { country: ['BR'], region: ['Rio de Janeiro'] }, target: 'https://example.com/rio' },
      { if: { country: ['BR', 'PT'] }, target: 'https://example.com/pt' },
    ],
  };

  it('sends a scan to the first rule its place matches (names without regard to case), else to the target', () => {
    expect(targetOf('https://example.com/', scanFrom({ country: 'BR', region: 'São Paulo', city: 'São Paulo' }))).toBe(
      'https://example.com/sampa',
    );
    expect(
      targetOf('https://example.com/', scanFrom({ country: 'BR', region: 'RIO DE JANEIRO', city: 'Niterói' })),
    ).toBe('https://example.com/rio');
    expect(targetOf('https://example.com/', scanFrom({ country: 'PT' }))).toBe('https://example.com/pt');
    expect(targetOf('https://example.com/', scanFrom({ country: 'US', city: 'Austin' }))).toBe('https://example.com/');
  });

  it('matches no place condition for a scan that could not be placed', () => {
    expect(targetOf('https://example.com/', scanFrom(null))).toBe('https://example.com/');
  });
});
