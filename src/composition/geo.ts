// The geo lookup scans are placed by: the shipped country database, and the operator's city database when configured.
import { MmdbGeoLookup, shippedCountryDatabase } from '../adapters/geo/geo-lookup.mmdb.js';
import { ConfigError, type Config } from '../config.js';
import type { GeoLookup } from '../domain/ports/geo-lookup.js';

/** Reads the databases once; a city database that cannot be read stops start-up with a line naming GEOIP_CITY_DB. */
export async function createGeoLookup(config: Pick<Config, 'geoipCityDb'>): Promise<GeoLookup> {
  const countries = shippedCountryDatabase();
  if (config.geoipCityDb === undefined) return MmdbGeoLookup.open(countries);
  try {
    return await MmdbGeoLookup.open(countries, config.geoipCityDb);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`GEOIP_CITY_DB ${config.geoipCityDb}: not a readable MaxMind DB (.mmdb) file (${reason})`);
  }
}
