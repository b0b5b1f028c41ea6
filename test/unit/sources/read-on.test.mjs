// Reading a file on from the middle (`from`): the items are those a reading from the start gives for
// the same lines, with the same line numbers, slots and problems, whatever the format allows.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { readSourceFile, resolveSourceFiles } from '../../../dist/sources/index.js';
import { tempDir } from '../../helpers.mjs';

/** Every item of the file, and where the reading ended; from `from` when given. */
async function read(dir, name, from) {
  const [file] = await resolveSourceFiles({ path: name }, dir);
  /** @type {any[]} */
  const items = [];
  /** @type {any} */
  let end;
  for await (const item of readSourceFile(file, { entity: 'messages', from, onEnd: (e) => (end = e) }))
    items.push(item);
  return { items, end };
}

/** A reading of the whole file, and the place after `text` (the file's start) as `from` takes it. */
async function pointAfter(dir, name, text) {
  const whole = await read(dir, name);
  return { whole, from: (ordinal, line) => ({ byte: Buffer.byteLength(text), line, ordinal }) };
}

test('NDJSON read on from the middle: the same items, lines and slots as a reading from the start', async () => {
  const dir = await tempDir();
  // A BOM at the start, a blank line and a bad line after the point: only the start drops the BOM.
  const before = '\ufeff{"muid":"a"}\n\n{"muid":"b"}\n';
  const after = '{"muid":"c"}\nnot json\n\n{"muid":"d"}\n';
  await writeFile(path.join(dir, 'm.ndjson'), before);
  const first = await read(dir, 'm.ndjson');
  assert.deepEqual(first.end, { line: 4, newline: true });
  await writeFile(path.join(dir, 'm.ndjson'), before + after);
  const { whole, from } = await pointAfter(dir, 'm.ndjson', before);
  const on = await read(dir, 'm.ndjson', from(first.items.length, first.end.line));
  assert.deepEqual(on.items, whole.items.slice(first.items.length));
  assert.deepEqual(on.end, whole.end);
  assert.deepEqual(
    on.items.map((i) => [i.kind, i.line, i.ordinal]),
    [
      ['record', 4, 2],
      ['problem', 5, 3],
      ['record', 7, 4],
    ],
  );
});

test('CSV read on from the middle keeps its header, and a broken row after the point costs only that row', async () => {
  const dir = await tempDir();
  const before = 'muid,data.text\nm1,"one\ntwo"\nm2,plain\n';
  const after = 'm3,"bad"x\nm4,"multi\nline"\nm5,last\n';
  await writeFile(path.join(dir, 'm.csv'), before);
  const first = await read(dir, 'm.csv');
  await writeFile(path.join(dir, 'm.csv'), before + after);
  const { whole, from } = await pointAfter(dir, 'm.csv', before);
  const on = await read(dir, 'm.csv', from(first.items.length, first.end.line));
  assert.deepEqual(on.items, whole.items.slice(first.items.length));
  assert.deepEqual(
    on.items.map((i) => [i.kind, i.line, i.ordinal, i.value?.['data.text'] ?? i.rule]),
    [
      ['problem', 5, 2, 'input.csv-syntax'],
      ['record', 6, 3, 'multi\nline'],
      ['record', 8, 4, 'last'],
    ],
  );
});
