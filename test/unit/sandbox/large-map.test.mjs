// The sandbox's muid index: a Map past V8's 2^24 entries, as shards. It answers as one Map would, and
// muids that differ only in their last characters (the usual export ids) spread over every shard, so
// no shard meets the limit before the whole holds 16 times it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LargeMap } from '../../../dist/sandbox/large-map.js';

test('answers has, get, set, delete and size as one Map does', () => {
  const large = new LargeMap(4);
  const plain = new Map();
  for (let i = 0; i < 5000; i++) {
    const key = `m${(i * 7919) % 3001}`;
    if (i % 5 === 4) assert.equal(large.delete(key), plain.delete(key));
    else {
      large.set(key, i);
      plain.set(key, i);
    }
    assert.equal(large.get(key), plain.get(key));
    assert.equal(large.has(key), plain.has(key));
  }
  assert.equal(large.size, plain.size);
});

test('ids that differ only at their end spread over every shard', () => {
  const large = new LargeMap(16);
  for (let i = 0; i < 16_000; i++) large.set(`slack-c0123456789-1700000000.${String(i).padStart(6, '0')}`, i);
  const sizes = large.shardSizes();
  assert.ok(Math.min(...sizes) > 700 && Math.max(...sizes) < 1300, `shard sizes ${sizes.join(', ')}`);
});
