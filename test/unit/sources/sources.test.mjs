// Source readers against real files in a temp dir: formats, line numbers, malformed input, globs.
// Build first: npx tsc -p tsconfig.json
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readSourceFile, resolveSourceFiles } from '../../../dist/sources/index.js';
import { InputError } from '../../../dist/errors.js';

const dir = await mkdtemp(path.join(tmpdir(), 'cm-sources-'));

/** Writes `name` in the temp dir and returns its ResolvedFile. */
async function file(name, content, extra = {}) {
  const full = path.join(dir, name);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content);
  const [resolved] = await resolveSourceFiles({ path: name, ...extra }, dir);
  return resolved;
}

/** @returns {Promise<any[]>} items of either kind: each test reads the fields of the kind it expects */
async function read(resolved, options) {
  const items = [];
  for await (const item of readSourceFile(resolved, options)) items.push(item);
  if (resolved.format === 'csv' && !resolved.gzip) {
    // Every CSV case also runs with csv-parse in a worker thread (large files): the same items.
    // (Not for .gz: how much of a corrupt gzip file arrives before its error depends on timing.)
    const viaWorker = [];
    for await (const item of readSourceFile(resolved, { ...options, csvWorkerMinBytes: 0 })) viaWorker.push(item);
    assert.deepEqual(viaWorker, items, `${resolved.display}: the worker-thread parse differs`);
  }
  return items;
}

const records = (items) => items.filter((i) => i.kind === 'record');
const problems = (items) => items.filter((i) => i.kind === 'problem');
/** [line, ordinal, value or rule] per item: compact expectations. */
const shape = (items) => items.map((i) => [i.line, i.ordinal, i.kind === 'record' ? i.value : i.rule]);

test('ndjson: records with lines and ordinals; blank lines take no slot; bad lines continue', async () => {
  const f = await file('a.ndjson', '{"uid":"u1"}\n\n   \r\nnot json\n[1,2]\n"str"\n{"uid":"u2"}');
  assert.equal(f.format, 'ndjson');
  assert.deepEqual(shape(await read(f)), [
    [1, 0, { uid: 'u1' }],
    [4, 1, 'input.json-syntax'],
    [5, 2, 'input.not-object'],
    [6, 3, 'input.not-object'],
    [7, 4, { uid: 'u2' }],
  ]);
});

test('jsonl with CRLF, a BOM and gzip', async () => {
  const body = '\ufeff{"a":1}\r\n{"a":2}\r\n';
  const plain = await read(await file('b.jsonl', body));
  const gz = await read(await file('b.jsonl.gz', gzipSync(body)));
  assert.deepEqual(shape(plain), [
    [1, 0, { a: 1 }],
    [2, 1, { a: 2 }],
  ]);
  assert.deepEqual(
    gz,
    plain.map((i) => ({ ...i, file: 'b.jsonl.gz' })),
  );
});

test('csv: header, BOM, quoted newline and comma, exact start lines, empty cells omitted', async () => {
  const csv =
    '\ufeffuid, name ,data.text\r\nu1,Bob,"hello, world\r\nsecond line\nthird"\r\n\r\nu2,,plain\nu3,"Ann ""A""",x\n';
  const f = await file('users.csv', csv);
  assert.equal(f.display, 'users.csv');
  assert.deepEqual(shape(await read(f)), [
    [2, 0, { uid: 'u1', name: 'Bob', 'data.text': 'hello, world\r\nsecond line\nthird' }],
    [6, 1, { uid: 'u2', 'data.text': 'plain' }],
    [7, 2, { uid: 'u3', name: 'Ann "A"', 'data.text': 'x' }],
  ]);
});

test('csv: a wrong column count is a problem and reading goes on; an unterminated quote costs its row', async () => {
  const f = await file('bad.csv', 'a,b,c,d\n1,2,3,4\n1,2,3,4,5\n1,2\n5,6,7,8\n9,"open,\n10,11,12,13\n');
  const items = await read(f);
  assert.deepEqual(shape(items), [
    [2, 0, { a: '1', b: '2', c: '3', d: '4' }],
    [3, 1, 'input.csv-columns'],
    [4, 2, 'input.csv-columns'],
    [5, 3, { a: '5', b: '6', c: '7', d: '8' }],
    [6, 4, 'input.csv-syntax'],
    [7, 5, { a: '10', b: '11', c: '12', d: '13' }],
  ]);
  assert.equal(items[1].message, 'row has 5 fields; header has 4');
  assert.equal(items[4].fatalForFile, undefined);
  assert.equal(
    items[4].message,
    'a quote opened in this row never closes: line 6 could not be read as a row; reading goes on at line 7',
  );
});

test('csv: other syntax errors cost their row; empty header names are reported; a broken header ends it', async () => {
  const items = await read(await file('quote.csv', 'a,,a\n1,2,3\n4,"5"x,6\n7,8,9\n'));
  assert.deepEqual(shape(items), [
    [1, undefined, 'input.csv-header'],
    [1, undefined, 'input.csv-header'],
    [2, 0, { a: '1' }],
    [3, 1, 'input.csv-syntax'],
    [4, 2, { a: '7' }],
  ]);
  assert.match(items[3].message, /^a closing quote is followed by "x" .*: line 3 could not be read as a row/);
  const header = await read(await file('header.csv', '"a,b\n1,2\n3,4\n'));
  assert.deepEqual(shape(header), [[1, undefined, 'input.csv-syntax']]);
  assert.equal(header[0].fatalForFile, true);
  assert.match(header[0].message, /^the header row could not be read: .*: lines 1-3 \(3 lines\)$/);
});

test('json: pretty-printed array, each record at the line of its {', async () => {
  const arr = [{ muid: 'm1', data: { text: 'a' } }, { muid: 'm2', tags: ['x', 'y'] }, { muid: 'm3' }];
  const f = await file('m.json', JSON.stringify(arr, null, 2));
  const items = await read(f);
  assert.deepEqual(shape(items), [
    [2, 0, arr[0]],
    [8, 1, arr[1]],
    [15, 2, arr[2]],
  ]);
});

test('json: minified one-line file longer than a parser piece still streams, line 1', async () => {
  const arr = Array.from({ length: 5000 }, (_, i) => ({ muid: `m${i}`, data: { text: 'é'.repeat(40) + i } }));
  const items = await read(await file('min.json', JSON.stringify(arr)));
  assert.equal(items.length, 5000);
  assert.ok(items.every((i, n) => i.kind === 'record' && i.line === 1 && i.ordinal === n));
  assert.deepEqual(items[4999].value, arr[4999]);
});

test('json: id-keyed object sets key; non-object values are problems', async () => {
  const f = await file(
    'keyed.json',
    '{\n  "u1": {"name": "A"},\n  "u2":\n    {"uid": "u2", "name": "B"},\n  "u3": 7\n}\n',
  );
  const items = await read(f);
  assert.deepEqual(shape(items), [
    [2, 0, { name: 'A' }],
    [4, 1, { uid: 'u2', name: 'B' }],
    [5, 2, 'input.not-object'],
  ]);
  assert.deepEqual(
    records(items).map((r) => r.key),
    ['u1', 'u2'],
  );
});

test('json: the API wrapper, keyed or array; options.entity picks the key', async () => {
  const body = { users: { u1: { name: 'A' } }, groups: [{ guid: 'g1' }, { guid: 'g2' }] };
  const f = await file('wrapped.json', JSON.stringify(body, null, 1));
  const users = await read(f, { entity: 'users' });
  assert.deepEqual(
    users.map((i) => [i.key, i.value]),
    [['u1', { name: 'A' }]],
  );
  const groups = await read(f, { entity: 'groups' });
  assert.deepEqual(
    groups.map((i) => [i.line, i.ordinal, i.key, i.value]),
    [
      [8, 0, undefined, { guid: 'g1' }],
      [11, 1, undefined, { guid: 'g2' }],
    ],
  );
  const all = await read(f);
  assert.equal(records(all).length, 3);
  const missing = await read(f, { entity: 'messages' });
  assert.deepEqual(
    shape(missing).map((s) => s[2]),
    ['input.json-shape'],
  );
});

test('json: a record that is not JSON costs its slot, at line and column; a broken structure ends it', async () => {
  const bad = await read(await file('syntax.json', '[\n  {"a": 1},\n  {"b": 2,,},\n  {"c": 3}\n]\n'));
  assert.deepEqual(shape(bad), [
    [2, 0, { a: 1 }],
    [3, 1, 'input.json-syntax'],
    [4, 2, { c: 3 }],
  ]);
  assert.equal(bad[1].fatalForFile, undefined);
  assert.equal(bad[1].message, 'invalid JSON at line 3, column 11: Expected double-quoted property name');
  const scalar = await read(await file('scalar.json', '\n  "just a string"\n'));
  assert.deepEqual(shape(scalar), [[2, undefined, 'input.json-shape']]);
  const cut = await read(await file('cut.json', '[\n{"a": 1},\n{"b": '));
  assert.deepEqual(shape(cut), [
    [2, 0, { a: 1 }],
    [3, undefined, 'input.json-syntax'],
  ]);
  assert.match(cut[1].message, /^invalid JSON at line 3, column 1: the value that starts here never ends/);
  const broken = await read(await file('broken.json', '[\n{"a": 1}\n{"b": 2},\n{"c": 3}\n]\n'));
  assert.deepEqual(shape(broken), [
    [2, 0, { a: 1 }],
    [3, undefined, 'input.json-syntax'],
  ]);
  assert.equal(broken[1].fatalForFile, true);
  const lost = 'nothing from there on could be read: lines 3-5 (3 lines)';
  assert.equal(broken[1].message, `invalid JSON at line 3, column 1: expected "," or "]"; ${lost}`);
});

test('invalid UTF-8: the record is a problem at its line; reading continues', async () => {
  // A damaged line of a UTF-8 file (it holds UTF-8 characters too: a file of none reads as Latin-1).
  const bad = Buffer.concat([Buffer.from('é'), Buffer.from([0xc3, 0x28])]);
  const nd = await read(
    await file(
      'u.ndjson',
      Buffer.concat([Buffer.from('{"a":"ok"}\n{"a":"'), bad, Buffer.from('"}\n{"a":"\ufffd is valid"}\n')]),
    ),
  );
  assert.deepEqual(shape(nd), [
    [1, 0, { a: 'ok' }],
    [2, 1, 'input.utf8'],
    [3, 2, { a: '\ufffd is valid' }],
  ]);
  const csv = await read(
    await file('u.csv', Buffer.concat([Buffer.from('a,b\n1,"x\n'), bad, Buffer.from('"\n3,4\n')])),
  );
  // the problem points at the line holding the bad bytes, not where the multi-line record starts
  assert.deepEqual(shape(csv), [
    [3, 0, 'input.utf8'],
    [4, 1, { a: '3', b: '4' }],
  ]);
  const json = await read(
    await file('u.json', Buffer.concat([Buffer.from('[\n{"a": 1},\n{"a":\n"'), bad, Buffer.from('"},\n{"a": 3}\n]')])),
  );
  assert.deepEqual(shape(json), [
    [2, 0, { a: 1 }],
    [4, 1, 'input.utf8'],
    [5, 2, { a: 3 }],
  ]);
});

test('empty files: 0 bytes, whitespace, BOM only, empty .gz', async () => {
  for (const [name, content] of /** @type {[string, string | Buffer][]} */ ([
    ['e1.ndjson', ''],
    ['e2.csv', '\n\n  \n'],
    ['e3.json', '\ufeff  \n'],
    ['e4.json.gz', ''],
    ['e5.csv.gz', gzipSync('')],
  ])) {
    assert.deepEqual(shape(await read(await file(name, content))), [[1, undefined, 'input.empty-file']], name);
  }
});

test('corrupt gzip is a fatal problem; records before it are kept', async () => {
  const notGzip = await read(await file('x.ndjson.gz', 'plain text'));
  assert.deepEqual(shape(notGzip), [[1, undefined, 'input.gzip']]);
  assert.equal(notGzip[0].fatalForFile, true);
  const lines = Array.from({ length: 20000 }, (_, i) => JSON.stringify({ i })).join('\n');
  const gz = gzipSync(lines);
  const truncated = await read(await file('t.ndjson.gz', gz.subarray(0, gz.length >> 1)));
  const last = truncated.at(-1);
  assert.equal(last.rule, 'input.gzip');
  assert.ok(records(truncated).length > 1000);
  assert.equal(last.line, records(truncated).length + 1);
});

test('a file that cannot be opened is an InputError naming it', async () => {
  const f = await file('gone.ndjson', '{}\n');
  const missing = { ...f, path: path.join(dir, 'nope.ndjson'), display: 'nope.ndjson' };
  await assert.rejects(
    read(missing),
    (e) => e instanceof InputError && e.code === 'INPUT_NOT_FOUND' && /nope\.ndjson/.test(e.message),
  );
  if (process.getuid?.() !== 0) {
    const locked = await file('locked.csv', 'a\n1\n');
    await chmod(locked.path, 0o000);
    await assert.rejects(read(locked), (e) => e instanceof InputError && /locked\.csv/.test(e.message));
  }
});

test('abort stops reading promptly without an error', async () => {
  const lines = Array.from({ length: 100000 }, (_, i) => JSON.stringify({ i })).join('\n');
  const f = await file('big.ndjson', lines);
  const controller = new AbortController();
  let count = 0;
  for await (const item of readSourceFile(f, { signal: controller.signal })) {
    if (++count === 10) controller.abort();
    assert.equal(item.kind, 'record');
  }
  assert.equal(count, 10);
});

test('resolveSourceFiles: files, lists, globs, sorted and deduplicated; format and gzip', async () => {
  const g = path.join(dir, 'glob');
  await mkdir(g, { recursive: true });
  for (const n of ['b.csv', 'a.ndjson.gz', 'c.JSONL', 'd.json', 'weird [1].csv']) await writeFile(path.join(g, n), '');
  const files = await resolveSourceFiles(
    { path: ['glob/*.{csv,json}', 'glob/a.ndjson.gz', 'glob/b.csv', 'glob/c.*'] },
    dir,
  );
  assert.deepEqual(
    files.map((f) => [f.display, f.format, f.gzip]),
    [
      [path.join('glob', 'a.ndjson.gz'), 'ndjson', true],
      [path.join('glob', 'b.csv'), 'csv', false],
      [path.join('glob', 'c.JSONL'), 'ndjson', false],
      [path.join('glob', 'd.json'), 'json', false],
      [path.join('glob', 'weird [1].csv'), 'csv', false],
    ],
  );
  assert.ok(files.every((f) => path.isAbsolute(f.path)));
  const literal = await resolveSourceFiles({ path: 'glob/weird [1].csv' }, dir);
  assert.equal(literal.length, 1);
  const forced = await resolveSourceFiles({ path: 'glob/d.json', format: 'ndjson' }, dir);
  assert.equal(forced[0].format, 'ndjson');
  const outside = await resolveSourceFiles({ path: path.join(g, 'b.csv') }, path.join(dir, 'elsewhere'));
  assert.equal(outside[0].display, path.join(g, 'b.csv'));
});

test('resolveSourceFiles: missing file, empty glob, unknown extension, directory', async () => {
  const fails = (config, code, pattern) =>
    assert.rejects(
      resolveSourceFiles(config, dir),
      (e) => e instanceof InputError && e.code === code && pattern.test(e.message),
    );
  await fails({ path: 'missing.csv' }, 'INPUT_NOT_FOUND', /missing\.csv/);
  await fails({ path: 'glob/*.xml' }, 'INPUT_NOT_FOUND', /glob\/\*\.xml/);
  await writeFile(path.join(dir, 'notes.txt'), 'x');
  await fails({ path: 'notes.txt' }, 'INPUT_FORMAT', /notes\.txt/);
  await fails({ path: 'glob' }, 'INPUT_NOT_FOUND', /glob/);
});

test(
  'csv over many blocks: quoted newlines, bad bytes and a syntax error ' +
    'read the same in a worker thread; a cut .gz there ends with input.gzip',
  async () => {
    const rows = ['id,text'];
    for (let i = 1; i <= 6000; i++)
      rows.push(i % 97 === 0 ? `r${i},"two\nlines, ""quoted"""` : `r${i},plain text number ${i} ${'x'.repeat(i % 40)}`);
    const body = Buffer.from(`${rows.join('\n')}\n`);
    const at = body.indexOf('r3000,');
    const withBadByte = Buffer.concat([body.subarray(0, at + 6), Buffer.from([0xff]), body.subarray(at + 6)]);
    const items = await read(await file('big.csv', withBadByte));
    assert.ok(withBadByte.length > 4 * 65536, 'spans several read blocks');
    assert.equal(records(items).length, 5999);
    assert.deepEqual(
      problems(items).map((p) => p.rule),
      ['input.utf8'],
    );
    // the last record starts after 6000 lines plus one extra line for every quoted newline before it
    assert.equal(items.at(-1).line, 6001 + Math.floor(5999 / 97));
    const broken = await read(await file('big-broken.csv', Buffer.concat([body, Buffer.from('r9,"x"y\nr10,z\n')])));
    assert.equal(records(broken).length, 6001);
    assert.deepEqual(
      problems(broken).map((p) => p.rule),
      ['input.csv-syntax'],
    );
    const gz = gzipSync(body);
    const cutGz = await read(await file('big-cut.csv.gz', gz.subarray(0, Math.floor(gz.length / 2))), {
      csvWorkerMinBytes: 0,
    });
    assert.ok(records(cutGz).length > 0);
    assert.equal(problems(cutGz).at(-1).rule, 'input.gzip');
  },
);
