// A small city database in the MaxMind DB format, written here because no maintained npm package writes one.
//
// The npm registry has readers (`maxmind`, `mmdb-lib`, `@maxmind/geoip2-node`) but no writer we could find: MaxMind's
// own writers are Perl and Go, and no `mmdb-writer`-like package exists on npm. So this writes the format's smallest
// honest subset by the spec (https://maxmind.github.io/MaxMind-DB/): an IPv6 search tree with 24-bit records, IPv4
// networks under ::/96 as MaxMind's databases place them, a data section of maps, strings, arrays and unsigned
// integers, and the metadata map. Tests read the file through the same `maxmind` Reader the service uses, so a
// mistake here shows as a failed lookup, never as a false pass.
import { writeFileSync } from 'node:fs';

type MmdbValue = string | number | MmdbValue[] | { [key: string]: MmdbValue };

/** GeoIP2-City record fields the service reads. */
export interface CityRecord {
  country: string;
  region?: string;
  city?: string;
}

/** The MaxMind DB data types this writer uses, by their type numbers. */
const TYPE = { string: 2, uint16: 5, uint32: 6, map: 7, uint64: 9, array: 11 } as const;

function control(type: number, size: number): Buffer {
  let sizeBits = size;
  let extra = Buffer.alloc(0);
  if (size >= 285) {
    sizeBits = 30;
    extra = Buffer.from([(size - 285) >> 8, (size - 285) & 0xff]);
  } else if (size >= 29) {
    sizeBits = 29;
    extra = Buffer.from([size - 29]);
  }
  if (type <= 7) return Buffer.concat([Buffer.from([(type << 5) | sizeBits]), extra]);
  return Buffer.concat([Buffer.from([sizeBits, type - 7]), extra]);
}

function unsigned(type: number, value: number): Buffer {
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encode(value: MmdbValue, type?: number): Buffer {
  if (typeof value === 'number') return unsigned(type ?? TYPE.uint32, value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([control(TYPE.string, text.length), text]);
  }
  if (Array.isArray(value))
    return Buffer.concat([control(TYPE.array, value.length), ...value.map((item) => encode(item))]);
  const entries = Object.entries(value);
  const pairs = entries.flatMap(([key, item]) => [encode(key), encode(item)]);
  return Buffer.concat([control(TYPE.map, entries.length), ...pairs]);
}

function geoip2Record(place: CityRecord): MmdbValue {
  return {
    country: { iso_code: place.country, names: { en: place.country } },
    ...(place.region ? { subdivisions: [{ names: { en: place.region } }] } : {}),
    ...(place.city ? { city: { names: { en: place.city } } } : {}),
  };
}

/** `a.b.c.d/len` → the 128 bits of its IPv4-under-::/96 path, first `96 + len` of them. */
function pathOf(network: string): number[] {
  const [address = '', length = '32'] = network.split('/');
  const octets = address.split('.').map(Number);
  const bits = Array<number>(96).fill(0);
  for (const octet of octets) for (let bit = 7; bit >= 0; bit--) bits.push((octet >> bit) & 1);
  return bits.slice(0, 96 + Number(length));
}

/** Writes a GeoIP2-City-shaped database placing each IPv4 network (`a.b.c.d/len`) where its record says. */
export function writeCityDatabase(file: string, networks: Record<string, CityRecord>): void {
  // Tree nodes as [left, right]: a number is a node, a string is a data key, undefined is "no data".
  const nodes: Array<[number | string | undefined, number | string | undefined]> = [[undefined, undefined]];
  for (const network of Object.keys(networks)) {
    const path = pathOf(network);
    let node = 0;
    path.forEach((bit, depth) => {
      if (depth === path.length - 1) {
        nodes[node]![bit] = network;
        return;
      }
      let next = nodes[node]![bit];
      if (typeof next !== 'number') {
        nodes.push([undefined, undefined]);
        next = nodes.length - 1;
        nodes[node]![bit] = next;
      }
      node = next;
    });
  }
  const nodeCount = nodes.length;
  const data: Buffer[] = [];
  const offsets = new Map<string, number>();
  let size = 0;
  for (const [network, place] of Object.entries(networks)) {
    offsets.set(network, size);
    const record = encode(geoip2Record(place));
    data.push(record);
    size += record.length;
  }
  const recordValue = (record: number | string | undefined) =>
    record === undefined ? nodeCount : typeof record === 'number' ? record : nodeCount + 16 + offsets.get(record)!;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(recordValue(left), i * 6, 3);
    tree.writeUIntBE(recordValue(right), i * 6 + 3, 3);
  });
  const metadata = Buffer.concat([
    control(TYPE.map, 9),
    encode('node_count'),
    encode(nodeCount, TYPE.uint32),
    encode('record_size'),
    encode(24, TYPE.uint16),
    encode('ip_version'),
    encode(6, TYPE.uint16),
    encode('database_type'),
    encode('GeoIP2-City'),
    encode('languages'),
    encode(['en']),
    encode('binary_format_major_version'),
    encode(2, TYPE.uint16),
    encode('binary_format_minor_version'),
    encode(0, TYPE.uint16),
    encode('build_epoch'),
    encode(1_780_000_000, TYPE.uint64),
    encode('description'),
    encode({ en: 'QR Manager test city database' }),
  ]);
  const marker = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com')]);
  writeFileSync(file, Buffer.concat([tree, Buffer.alloc(16), ...data, marker, metadata]));
}
