// A progress bar's total is the count of what the readers give, not of lines: the pre-count
// (src/sources/count-records.ts) against the readers themselves, over real files.
// Build first: npx tsc -p tsconfig.json
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readSourceFile, resolveSourceFiles } from '../../../dist/sources/index.js';
import { countRecords } from '../../../dist/sources/count-records.js';
import { CsvRecordCounter } from '../../../dist/sources/csv-record-counter.js';
import { mulberry32 } from '../../../dist/sandbox/index.js';

const dir = await mkdtemp(path.join(tmpdir(), 'cm-count-'));

/** The file's record slots as the reader numbers them, and whether csv-parse refused a row. */
async function slotsOf(file, entity) {
  let slots = 0;
  let refused = false;
  for await (const item of readSourceFile(file, { entity })) {
    if (item.ordinal !== undefined) slots++;
    // A refused CSV row restarts the parse; a file in another encoding is not read at all.
    if (item.kind === 'problem' && ['input.csv-syntax', 'input.encoding'].includes(item.rule)) refused = true;
  }
  return { slots, refused };
}

async function written(name, bytes) {
  await writeFile(path.join(dir, name), bytes);
  const [file] = await resolveSourceFiles({ path: name }, dir);
  return file;
}

test('csv: quoted line breaks, blank and whitespace rows, CRLF and a BOM count as the reader reads', async () => {
  const text =
    '\ufeffid,text\r\n' +
    '1,"two\nlines"\r\n' +
    '\r\n' +
    '   \n' +
    '"\u00a0"\n' +
    '2,"a ""quote"" and, a comma\n\nover three lines"\n' +
    ',\n' +
    '3,last without a newline';
  const file = await written('quoted.csv', text);
  assert.deepEqual(await slotsOf(file, 'messages'), { slots: 4, refused: false });
  assert.equal(await countRecords(file, 'messages'), 4);
  const gz = await written('quoted.csv.gz', gzipSync(text));
  assert.equal(await countRecords(gz, 'messages'), 4);
});

test('csv and ndjson: random files of awkward rows count exactly what the reader gives', async () => {
  const random = mulberry32(25);
  const pick = (list) => list[Math.floor(random() * list.length)];
  // Fields csv-parse reads; rows of one or two of them, and rows that are blank to the reader.
  const fields = ['a', 'bc', '', ' ', '\t', '""', '"x"', '" "', '"\n"', '\u00a0', '\u3000 ', 'é', '"a,b"', '"l1\nl2"'];
  const more = ['"l1\r\nl2"', '"q""q"', ' x ', '\ufeff', '\r', Buffer.from([0xff])];
  const lineAtoms = ['{"a":1}', '\n', ' ', '\r\n', '\t', 'x', '\u00a0', '[1]', Buffer.from([0xfe])];
  const bytesOf = (parts) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  let compared = 0;
  for (let n = 0; n < 400; n++) {
    const csv = n % 2 === 0;
    const parts = [];
    if (random() < 0.2) parts.push('\ufeff');
    if (csv) parts.push('id,name\n');
    for (let i = Math.floor(random() * 30); i > 0; i--) {
      if (!csv) parts.push(pick(lineAtoms));
      else {
        parts.push(pick([...fields, ...more]));
        if (random() < 0.5) parts.push(',', pick(fields));
        parts.push(pick(['\n', '\r\n', '\n']));
      }
    }
    const bytes = bytesOf(parts);
    const file = await written(`r${n}.${csv ? 'csv' : 'ndjson'}`, bytes);
    const { slots, refused } = await slotsOf(file, 'messages');
    // A row csv-parse refuses, or a file not in UTF-8: the count may differ there (documented).
    if (refused) continue;
    compared++;
    assert.equal(await countRecords(file, 'messages'), slots, `${file.display}: ${JSON.stringify(bytes.toString())}`);
  }
  assert.ok(compared > 300, `only ${compared} files were readable throughout`);
});

test('csv: where the chunks are cut changes nothing', () => {
  const random = mulberry32(7);
  const rows = Array.from({ length: 60 }, (_, i) => `${i},"x""\ny",\u00a0\n \u3000\n"${i}"\r\n"\n"\n`);
  const text = Buffer.from(`id,t\n${rows.join('')}`);
  const whole = new CsvRecordCounter();
  whole.feed(text);
  const expected = whole.end();
  assert.equal(expected, 120);
  for (let round = 0; round < 200; round++) {
    const counter = new CsvRecordCounter();
    for (let at = 0; at < text.length; ) {
      const size = 1 + Math.floor(random() * 7);
      counter.feed(text.subarray(at, at + size));
      at += size;
    }
    assert.equal(counter.end(), expected);
  }
});

test('json: arrays, id-keyed objects and the API wrapper count their records', async () => {
  const array = await written('a.json', '[\n{"uid":"a"},\n\n{"uid":"b"}, 3, {"uid": }\n]');
  assert.equal((await slotsOf(array, 'users')).slots, 4);
  assert.equal(await countRecords(array, 'users'), 4);
  const keyed = await written('k.json', '{"a": {"name": "A"}, "b": {"name": "B"}}');
  assert.equal(await countRecords(keyed, 'users'), 2);
  const wrapper = await written('w.json', '{"users": [{"uid": "a"}], "groups": {"g1": {}, "g2": {}, "g3": {}}}');
  assert.equal(await countRecords(wrapper, 'users'), 1);
  assert.equal(await countRecords(wrapper, 'groups'), 3);
  assert.equal((await slotsOf(wrapper, 'groups')).slots, 3);
});
