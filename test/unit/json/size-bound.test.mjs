// The byte bound decides when a record's size is measured exactly: if it ever fell below the real
// size, an oversized record would pass both the validator and the sandbox unmeasured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonBytesBound, jsonBytesBoundWatching } from '../../../dist/json/size-bound.js';

/** A small seeded generator (mulberry32), so a failure names a value that can be replayed. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'é', '👋', '"', '\\', '\n', '\u0001', '\u2028', '\ud800', 'text '];
const NUMBERS = [
  0,
  -1,
  1.5,
  -2.2250738585072014e-308,
  -1.2345678901234567e-6,
  -1.2345678901234567e20,
  1e21,
  Number.MAX_SAFE_INTEGER,
  NaN,
  Infinity,
];

function value(rnd, depth) {
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const kind = depth > 3 ? Math.floor(rnd() * 6) : Math.floor(rnd() * 8);
  switch (kind) {
    case 0:
      return Array.from({ length: Math.floor(rnd() * 6) }, () => pick(PIECES)).join('');
    case 1:
      return pick(NUMBERS);
    case 2:
      return rnd() < 0.5;
    case 3:
      return null;
    case 4:
      return undefined;
    case 5:
      return () => 1;
    case 6:
      return Array.from({ length: Math.floor(rnd() * 5) }, () => value(rnd, depth + 1));
    default: {
      const o = {};
      for (let i = Math.floor(rnd() * 5); i > 0; i--) o[`${pick(PIECES)}${i}`] = value(rnd, depth + 1);
      return o;
    }
  }
}

test('the bound is never below the UTF-8 size of JSON.stringify, whatever the value holds', () => {
  const rnd = random(20261122);
  for (let i = 0; i < 20000; i++) {
    const v = value(rnd, 0);
    const text = JSON.stringify(v);
    if (text === undefined) continue;
    const exact = Buffer.byteLength(text, 'utf8');
    assert.ok(jsonBytesBound(v) >= exact, `bound ${jsonBytesBound(v)} < ${exact} for ${text}`);
  }
});

test('the longest number a double prints is within the bound', () => {
  for (const n of [-1.2345678901234567e-6, -2.2250738585072014e-308, -1.2345678901234567e20]) {
    assert.ok(jsonBytesBound(n) >= String(n).length, `${n} prints ${String(n).length} characters`);
  }
});

test('an array of undefined and functions counts each as null', () => {
  const v = [undefined, () => 1, Symbol('s')];
  assert.equal(JSON.stringify(v), '[null,null,null]');
  assert.ok(jsonBytesBound(v) >= 16);
});

test('the watched key is seen at any depth, and forgotten by the next walk', () => {
  assert.equal(jsonBytesBoundWatching({ a: [{ b: { formFields: [] } }] }, 'formFields').sawKey, true);
  assert.equal(jsonBytesBoundWatching({ a: [{ b: { formfields: [] } }] }, 'formFields').sawKey, false);
});
