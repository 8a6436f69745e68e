// GeoLookup over MaxMind DB (.mmdb) files read with `maxmind`: the shipped open country database, and an optional city
// one.
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { createRequire } from 'node:module';
import { Reader, type Response } from 'maxmind';
import type { GeoLookup } from '../../domain/ports/geo-lookup.js';
import type { ScanPlace } from '../../domain/scan.js';

/**
 * The CC BY 4.0 country database (NRO data, ip-location-db) shipped as an npm dependency: refreshed by upgrading it.
 */
export function shippedCountryDatabase(): string {
  return createRequire(import.meta.url).resolve(
    '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
  );
}

/** The record shapes read: ip-location-db's flat one, and MaxMind's / DB-IP's GeoIP2 one. */
interface PlaceRecord {
  country_code?: string;
  state1?: string;
  city?: string | { names?: Record<string, string> };
  country?: { iso_code?: string };
  subdivisions?: Array<{ iso_code?: string; names?: Record<string, string> }>;
}

const COUNTRY = /^[A-Z]{2}$/;
const NAME_MAX = 100;
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

function nameOf(value: string | { names?: Record<string, string> } | undefined): string | undefined {
  const name = typeof value === 'string' ? value : value?.names?.en;
  return name ? name.slice(0, NAME_MAX) : undefined;
}

function countryOf(record: PlaceRecord | null): string | undefined {
  const code = (record?.country_code ?? record?.country?.iso_code)?.toUpperCase();
  return code !== undefined && COUNTRY.test(code) ? code : undefined;
}

export class MmdbGeoLookup implements GeoLookup {
  readonly #countries: Reader<Response>;
  readonly #cities: Reader<Response> | undefined;

  /**
   * Reads the files once, here, off the event loop (the shipped one is several megabytes): a missing or corrupt file
   * stops start-up rather than a scan.
   */
  static async open(countryDatabase: string, cityDatabase?: string): Promise<MmdbGeoLookup> {
    const [countries, cities] = await Promise.all([
      readFile(countryDatabase),
      cityDatabase === undefined ? undefined : readFile(cityDatabase),
    ]);
    return new MmdbGeoLookup(countries, cities);
  }

  /** Over databases already read; throws on one that is not a MaxMind DB. */
  constructor(countryDatabase: Buffer, cityDatabase?: Buffer) {
    this.#countries = new Reader(countryDatabase);
    this.#cities = cityDatabase === undefined ? undefined : new Reader(cityDatabase);
  }

  placeOf(address: string): ScanPlace | null {
    const ip = MAPPED_IPV4.exec(address)?.[1] ?? address;
    if (isIP(ip) === 0) return null;
    if (this.#cities) {
      const record = this.#cities.get(ip) as PlaceRecord | null;
      const country = countryOf(record);
      if (country !== undefined) {
        const region = nameOf(record?.state1 ?? record?.subdivisions?.[0]);
        const city = nameOf(record?.city);
        return { country, ...(region ? { region } : {}), ...(city ? { city } : {}) };
      }
    }
    const country = countryOf(this.#countries.get(ip) as PlaceRecord | null);
    return country === undefined ? null : { country };
  }
}
