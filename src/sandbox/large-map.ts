/**
 * A string-keyed map past V8's limit of 2^24 entries a Map (16,777,216: a sandbox holding more
 * messages than that answered every later import with a 500): the keys are spread over shards by a
 * hash of the key.
 */
export class LargeMap<V> {
  private readonly shards: Map<string, V>[];

  constructor(shardCount = 16) {
    this.shards = Array.from({ length: shardCount }, () => new Map<string, V>());
  }

  get size(): number {
    return this.shards.reduce((n, shard) => n + shard.size, 0);
  }

  /** Entries per shard: how evenly the keys spread. */
  shardSizes(): number[] {
    return this.shards.map((shard) => shard.size);
  }

  has(key: string): boolean {
    return this.shardOf(key).has(key);
  }

  get(key: string): V | undefined {
    return this.shardOf(key).get(key);
  }

  set(key: string, value: V): void {
    this.shardOf(key).set(key, value);
  }

  delete(key: string): boolean {
    return this.shardOf(key).delete(key);
  }

  private shardOf(key: string): Map<string, V> {
    // FNV-1a over the key's UTF-16 units: ids that differ only at the end still spread.
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    return this.shards[(h >>> 0) % this.shards.length];
  }
}
