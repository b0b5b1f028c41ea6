// The id transform (src/systems/shared/ids.ts) and the id mapping file.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { IdMapWriter, toServiceId } from '../../../dist/systems/shared/ids.js';
import { tempDir } from '../../helpers.mjs';

const VALID = /^[a-z0-9_-]{1,100}$/;

test('ids already valid and lower case are kept as they are', () => {
  for (const id of ['alice', 'user_1', 'a-b-c', '123456789012345678', 'x'.repeat(100)])
    assert.equal(toServiceId(id), id);
  assert.equal(toServiceId(42), '42');
});

test('ids that must change get a readable head and a hash suffix', () => {
  const id = toServiceId('U0BMQB6JE');
  assert.match(id, /^u0bmqb6je--[a-z2-7]{16}$/);
  assert.match(toServiceId('messaging:general'), /^messaging_general--[a-z2-7]{16}$/);
  assert.match(toServiceId('José María'), /^jose_maria--[a-z2-7]{16}$/);
  assert.match(toServiceId(''), /^id--[a-z2-7]{16}$/);
  assert.match(toServiceId('日本語'), /^id--[a-z2-7]{16}$/);
  const long = toServiceId('a'.repeat(150));
  assert.equal(long.length, 100);
  assert.match(long, /^a{82}--[a-z2-7]{16}$/);
});

test('every output is a valid service id', () => {
  for (const source of [
    'C0JGLMMNX:1452837318.000002',
    'Omar.K',
    ' spaced out ',
    '!members-T587kU501WCs0ADiZq',
    '😀',
    'a'.repeat(5000),
    '--',
    '_',
  ]) {
    assert.match(toServiceId(source), VALID, source);
  }
});

test('the transform is stable and never maps two source ids to one id', () => {
  assert.equal(toServiceId('Bob'), toServiceId('Bob'));
  // Case, punctuation and length variants that a naive lower-case/replace would merge.
  const sources = [
    'Bob',
    'bob',
    'BOB',
    'b.o.b',
    'b_o_b',
    'b o b',
    'a'.repeat(101),
    'a'.repeat(102),
    `${'a'.repeat(100)}b`,
  ];
  const ids = sources.map(toServiceId);
  assert.equal(new Set(ids).size, sources.length);
  assert.equal(toServiceId('bob'), 'bob');
  assert.notEqual(toServiceId('Bob'), 'bob');
});

test('a source id shaped like a transformed id is transformed too, so kept and transformed ids never meet', () => {
  const transformed = toServiceId('Bob');
  assert.notEqual(toServiceId(transformed), transformed);
  assert.match(toServiceId(transformed), /--[a-z2-7]{16}--[a-z2-7]{16}$/);
});

test('many distinct source ids stay distinct', () => {
  const seen = new Map();
  for (let i = 0; i < 20000; i++) {
    for (const source of [`U${i}`, `u${i}`, `C${i}:${i}.000001`]) {
      const id = toServiceId(source);
      assert.ok(!seen.has(id) || seen.get(id) === source, `${source} and ${seen.get(id)} both map to ${id}`);
      seen.set(id, source);
    }
  }
});

test('the id map file lists users and groups once, messages each time, and appears whole', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'nested', 'ids.ndjson');
  const writer = new IdMapWriter(file);
  await writer.open();
  writer.add('users', 'U1', 'u1--x');
  writer.add('users', 'U1', 'u1--x');
  writer.add('groups', 'C1', 'c1--y');
  writer.add('messages', 'm1', 'm1');
  await writer.flush();
  await assert.rejects(readFile(file, 'utf8'), /ENOENT/);
  await writer.close();
  const lines = (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(lines, [
    { entity: 'users', sourceId: 'U1', id: 'u1--x' },
    { entity: 'groups', sourceId: 'C1', id: 'c1--y' },
    { entity: 'messages', sourceId: 'm1', id: 'm1' },
  ]);
});
