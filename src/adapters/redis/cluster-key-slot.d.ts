// Types of cluster-key-slot (ioredis's own slot calculator), which ships none.
declare module 'cluster-key-slot' {
  /** The Redis Cluster slot (0..16383) of a key: CRC16 of its hash tag, or of the whole key without one. */
  export default function generate(key: string | Buffer): number;
}
