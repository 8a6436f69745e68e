// Port: where a client address is on the map (country, and region and city when a city database is configured).
import type { ScanPlace } from '../scan.js';

/**
 * Contract: `placeOf` answers from data loaded once per process, synchronously, without any network call; an address
 * it cannot place (private, reserved, unknown, malformed) is null. IPv4-mapped IPv6 addresses are placed as IPv4.
 */
export interface GeoLookup {
  placeOf(address: string): ScanPlace | null;
}
