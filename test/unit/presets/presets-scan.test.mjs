// The streaming layer under every preset: the JSON scanner (the one in src/sources/, which plain JSON
// sources use too), presets' pieces read through the shared byte layer, and the export tree.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { openExportTree } from '../../../dist/systems/shared/export-tree.js';
import { JsonScanner, TAKE, WALK } from '../../../dist/sources/json-scan.js';
import { readPieces } from '../../../dist/sources/read-pieces.js';
import { tempDir } from '../../helpers.mjs';
import { zipFolder } from '../../presets-helpers.mjs';

/** The scanner fed `chunk` characters at a time, walking into what `descend` says and taking the rest. */
async function scan(text, descend, chunk = 7) {
  const hits = [];
  const scanner = new JsonScanner({
    decide: (p, container) => (container && descend(p) ? WALK : TAKE),
    take: (p, value, line) => hits.push([p.join('.'), line, JSON.parse(value)]),
  });
  try {
    for (let i = 0; i < text.length; i += chunk) scanner.feed(text.slice(i, i + chunk));
    scanner.end();
  } catch (error) {
    hits.push(['error', `${error.line}:${error.column}`, error.message]);
  }
  return hits;
}

/** Pieces of `bytes` read as a preset reads a file, the stream handing out `chunk` bytes at a time. */
async function pieces(bytes, layout, chunk = 3) {
  const parts = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  const out = [];
  for await (const p of readPieces({ display: 'x.json', open: async () => Readable.from(parts) }, layout)) {
    /** @type {any} */
    const bad = p;
    out.push(p.ok ? [p.path.join('.'), p.line, p.value] : [bad.rule, bad.line, bad.slot, bad.fatal]);
  }
  return out;
}

test('elements of a top-level array, with their lines, whatever the chunk size', async () => {
  const text = '[\n  {"a": "]},\\"{"},\n  {"é": [1, {"x": 2}]},\n  3, "s", true, null\n]';
  const expected = [
    ['0', 2, { a: ']},"{' }],
    ['1', 3, { é: [1, { x: 2 }] }],
    ['2', 4, 3],
    ['3', 4, 's'],
    ['4', 4, true],
    ['5', 4, null],
  ];
  for (const chunk of [1, 2, 3, 5, 64, 4096])
    assert.deepEqual(await scan(text, (p) => p.length === 0, chunk), expected, `chunk ${chunk}`);
});

test('values under keys and nested lists (Telegram: chats.list[i].messages[j])', async () => {
  const text = JSON.stringify(
    {
      about: 'x',
      chats: {
        list: [
          { name: 'a', messages: [{ id: 1 }, { id: 2 }] },
          { name: 'b', messages: [] },
        ],
      },
    },
    null,
    1,
  );
  const descend = (p) => p.length <= 3 || (p.length === 4 && p[3] === 'messages');
  const hits = await scan(text, descend);
  assert.deepEqual(
    hits.map(([p, , v]) => [p, v]),
    [
      ['about', 'x'],
      ['chats.list.0.name', 'a'],
      ['chats.list.0.messages.0', { id: 1 }],
      ['chats.list.0.messages.1', { id: 2 }],
      ['chats.list.1.name', 'b'],
    ],
  );
});

test(
  'a value not walked into is cut out whole, so a 2 GB ' + 'array costs one record at a time only where asked',
  async () => {
    const hits = await scan(
      '{"messages": [{"m": 1}, {"m": 2}], "channel": {"url": "c"}}',
      (p) => p.length === 0 || (p.length === 1 && p[0] === 'messages'),
    );
    assert.deepEqual(
      hits.map(([p, , v]) => [p, v]),
      [
        ['messages.0', { m: 1 }],
        ['messages.1', { m: 2 }],
        ['channel', { url: 'c' }],
      ],
    );
  },
);

test('escaped keys; through the byte layer a BOM is skipped, characters split between chunks whole', async () => {
  assert.deepEqual(await scan('{"k\\u0041": 1}', (p) => p.length === 0), [['kA', 1, 1]]);
  const bytes = Buffer.from('\ufeff{"k\\u0041": 1,\n "é": "👋"}', 'utf8');
  for (const chunk of [1, 2, 3, 64]) {
    const expected = [
      ['kA', 1, 1],
      ['é', 2, '👋'],
    ];
    assert.deepEqual(await pieces(bytes, (p) => p.length === 0, chunk), expected, `chunk ${chunk}`);
  }
});

test("pieces: a value that is not JSON costs its slot; an empty file, a broken structure are the file's", async () => {
  const top = (p) => p.length === 0;
  const slot = ['input.json-syntax', 2, true, false];
  const bad = Buffer.from('[{"a": 1},\n {"b": tru},\n 3]');
  assert.deepEqual(await pieces(bad, top), [['0', 1, { a: 1 }], slot, ['2', 3, 3]]);
  assert.deepEqual(await pieces(Buffer.from(' \n'), top), [['input.empty-file', 1, false, false]]);
  const fatal = ['input.json-syntax', 2, false, true];
  assert.deepEqual(await pieces(Buffer.from('[1,\n2,'), top), [['0', 1, 1], ['1', 2, 2], fatal]);
  assert.deepEqual(await pieces(Buffer.from('{"a": 1}\n\n[2]\n'), 'lines'), [
    ['0', 1, { a: 1 }],
    ['1', 3, [2]],
  ]);
});

test('structural errors stop the file with their line and column; what came before is kept', async () => {
  const ends = ['error', '2:0', 'the file ends before the JSON document does'];
  assert.deepEqual(await scan('[1,\n2,\n', (p) => p.length === 0), [['0', 1, 1], ['1', 2, 2], ends]);
  const top = (p) => p.length === 0;
  assert.deepEqual(await scan('[{"a":1},]', top), [
    ['0', 1, { a: 1 }],
    ['error', '1:10', 'unexpected "]"'],
  ]);
  const after = ['error', '2:5', 'unexpected text after the end of the JSON document'];
  for (const chunk of [1, 3, 64]) assert.deepEqual((await scan('[1]\n \t  [2]', top, chunk)).at(-1), after);
  assert.deepEqual(await scan('{"a" 1}', top), [['error', '1:6', 'expected ":" after an object key']]);
  const open = ['error', '4:3', 'the value that starts here never ends (a quote or bracket missing?)'];
  const text = '[\n{"a":\n "x"},\n  {"b": "y}\n]';
  for (const chunk of [1, 5, 64]) assert.deepEqual((await scan(text, (p) => p.length === 0, chunk)).at(-1), open);
});

test('the export tree lists a folder, a zip (entries streamed) and a single file the same way', async () => {
  const dir = await tempDir();
  const folder = path.join(dir, 'export');
  await mkdir(path.join(folder, 'general'), { recursive: true });
  await mkdir(path.join(folder, '__MACOSX'), { recursive: true });
  await writeFile(path.join(folder, 'users.json'), '[{"id": "U1"}]');
  await writeFile(path.join(folder, 'general', '2016-01-14.json'), '[{"ts": "1"}]');
  await writeFile(path.join(folder, '.DS_Store'), 'x');
  await writeFile(path.join(folder, '__MACOSX', 'junk'), 'x');

  const tree = await openExportTree(folder, dir);
  assert.equal(tree.kind, 'folder');
  assert.deepEqual(tree.files, ['general/2016-01-14.json', 'users.json']);
  assert.equal(tree.where('users.json'), 'export/users.json');
  assert.equal(tree.diskPath('users.json'), path.join(folder, 'users.json'));

  const zipPath = await zipFolder(folder, path.join(dir, 'export.zip'));
  const zip = await openExportTree(zipPath, dir);
  assert.equal(zip.kind, 'zip');
  assert.deepEqual(zip.files, ['general/2016-01-14.json', 'users.json']);
  assert.equal(zip.where('users.json'), 'export.zip!users.json');
  assert.equal(zip.diskPath('users.json'), undefined);
  const chunks = [];
  for await (const chunk of await zip.open('general/2016-01-14.json')) chunks.push(chunk);
  assert.equal(Buffer.concat(chunks).toString(), '[{"ts": "1"}]');

  const single = await openExportTree(path.join(folder, 'users.json'), dir);
  assert.deepEqual(
    [single.kind, single.files, single.where('users.json')],
    ['file', ['users.json'], 'export/users.json'],
  );
});

test('a missing export is an input error', async () => {
  await assert.rejects(openExportTree('/nonexistent/export', '/'), { code: 'INPUT_NOT_FOUND' });
});
