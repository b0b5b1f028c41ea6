// The id-keyed map splitter (src/json/object-entries.ts) against JSON.parse itself: whenever it
// gives entries, parsing each value must rebuild exactly what JSON.parse builds; on anything else it
// must say undefined, never a wrong split.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { innerObjectEntries, objectEntries } from '../../../dist/json/object-entries.js';
import { parseRecordResults } from '../../../dist/http/parse-results.js';
import { mulberry32 } from '../../../dist/sandbox/fault-plan.js';

function rebuilt(text) {
  const entries = objectEntries(text);
  if (!entries) return { split: false };
  const out = {};
  for (const { key, start, end } of entries) {
    Object.defineProperty(out, key, {
      value: JSON.parse(text.slice(start, end)),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return { split: true, value: out, keys: entries.map((e) => e.key) };
}

test('splits the members of an object exactly as JSON.parse reads them, and refuses what is not one object', () => {
  const valid = [
    '{}',
    ' { } ',
    '{"a":1}',
    '{"a" : {"b":[1,2,{"c":"}"}]}, "d":"x\\"y", "e":null,"f":true,"g":-1.5e3}',
    '{"k\\u0041y":{"s":"brace { and ] in text"},"__proto__":{"x":1}}',
    '{\n\t"m1": {"text": "quote \\\\"},\r\n "m2": []\n}',
    '{"emoji 👋":"déjà"}',
  ];
  for (const text of valid) {
    const got = rebuilt(text);
    assert.equal(got.split, true, text);
    assert.deepEqual(got.value, JSON.parse(text), text);
  }
  const invalid = [
    '',
    '[]',
    '{"a":1,}',
    '{"a" 1}',
    '{a:1}',
    '{"a":1}x',
    '{"a":1',
    '{"a\u0001":1}',
    '{"a":}',
    '"x"',
    '{"a":1}{"b":2}',
  ];
  for (const text of invalid) assert.equal(objectEntries(text), undefined, text);
});

test('random objects and random corruptions of them: a split always agrees with JSON.parse', () => {
  const random = mulberry32(7);
  const pick = (s) => s[Math.floor(random() * s.length)];
  const value = (depth) => {
    const r = random();
    if (depth > 2 || r < 0.3) return pick(['x', 'a"b', 'c\\d', '{[', 12, -0.5, true, null, '']);
    if (r < 0.6) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(random() * 3) }, (_, i) => [
        pick(['k', 'data', 'x"y', '}']) + i,
        value(depth + 1),
      ]),
    );
  };
  let splits = 0;
  for (let n = 0; n < 3000; n++) {
    const object = Object.fromEntries(
      Array.from({ length: 1 + Math.floor(random() * 5) }, (_, i) => [`id${i}`, value(0)]),
    );
    let text = JSON.stringify(object, null, random() < 0.3 ? 1 : undefined);
    if (random() < 0.5) {
      const at = Math.floor(random() * text.length);
      text = text.slice(0, at) + pick(['', '"', '{', '}', ',', ':', '\\', ' ']) + text.slice(at + 1);
    }
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    // The one-member fast path finds the same members as splitting the inner object on its own.
    const wrapped = `{"data" :${text}}`;
    const inner = innerObjectEntries(wrapped, 'data');
    const alone = objectEntries(text);
    assert.equal(inner === undefined, alone === undefined, text);
    if (inner)
      assert.deepEqual(
        inner.map((e) => [e.key, wrapped.slice(e.start, e.end)]),
        alone.map((e) => [e.key, text.slice(e.start, e.end)]),
      );
    assert.equal(innerObjectEntries(wrapped, 'other'), undefined);
    let got;
    try {
      got = rebuilt(text);
    } catch {
      // a value range that is not JSON: callers fall back to JSON.parse of the whole text
      continue;
    }
    if (!got.split) continue;
    splits++;
    assert.ok(
      parsed !== undefined && typeof parsed === 'object' && !Array.isArray(parsed),
      `split a non-object: ${text}`,
    );
    if (new Set(got.keys).size === got.keys.length) assert.deepEqual(got.value, parsed, text);
  }
  assert.ok(splits > 1500, `only ${splits} splits`);
});

test('record results read fast agree with the whole-text parse, also for odd answers', () => {
  /** @type {[object, string[], string][]} */
  const answers = [
    // a record whose id is "data" in the flat shape
    [
      { data: { data: { success: true }, u2: { success: false, error: { code: 'E', message: 'm' } } } },
      ['data', 'u2'],
      'uid',
    ],
    // nested shape keyed by new ids, spaced out
    [
      {
        data: {
          data: {
            9: { success: true, data: { muid: 'M1' } },
            x: { success: false, muid: 'm2', error: { code: 'E2' } },
          },
        },
      },
      ['M1', 'm2'],
      'muid',
    ],
    // an answer holding one result under data.data (not the nested shape)
    [{ data: { data: { success: true } } }, ['u1'], 'uid'],
    // the usual answer: one result per sent id, in the order sent (read without lookup tables)
    [
      {
        data: {
          u1: { success: true, data: { uid: 'u1' } },
          u2: { success: false, error: { code: 'E', message: 'm' } },
        },
      },
      ['u1', 'u2'],
      'uid',
    ],
    // in order, but one entry is not a result
    [{ data: { u1: { success: true }, u2: { oops: 1 } } }, ['u1', 'u2'], 'uid'],
  ];
  for (const [body, ids, field] of answers) {
    // A second top-level member takes the answer off the fast readings: the whole-text parse is the reference.
    const whole = parseRecordResults(JSON.stringify({ ...body, zz: 0 }), ids, field);
    const compact = parseRecordResults(JSON.stringify(body), ids, field);
    const spaced = parseRecordResults(JSON.stringify(body, null, 2), ids, field);
    assert.deepEqual([...compact], [...whole]);
    assert.deepEqual([...spaced], [...whole]);
  }
  const [first] = answers;
  assert.deepEqual(
    [...parseRecordResults(JSON.stringify(first[0]), first[1], first[2])],
    [
      ['data', { success: true }],
      ['u2', { success: false, code: 'E', message: 'm' }],
    ],
  );
  assert.deepEqual(
    [...parseRecordResults(JSON.stringify(answers[3][0]), answers[3][1], 'uid')],
    [
      ['u1', { success: true }],
      ['u2', { success: false, code: 'E', message: 'm' }],
    ],
  );
  assert.deepEqual(
    [...parseRecordResults(JSON.stringify(answers[4][0]), answers[4][1], 'uid')],
    [['u1', { success: true }]],
  );
  // a success spelled with a space before its value, or not a boolean, is read as written
  assert.deepEqual(parseRecordResults('{"data":{"u1":{ "success" : true ,"data":{}}}}', ['u1'], 'uid').get('u1'), {
    success: true,
  });
  assert.equal(parseRecordResults('{"data":{"u1":{"success":"true"}}}', ['u1'], 'uid').size, 0);
  // duplicate keys: the last one counts, as in JSON.parse
  const dup = '{"data":{"u1":{"success":false,"error":{"code":"E"}},"u1":{"success":true}}}';
  assert.deepEqual(parseRecordResults(dup, ['u1'], 'uid').get('u1'), { success: true });
  assert.equal(parseRecordResults('not json', ['u1'], 'uid').size, 0);
});
