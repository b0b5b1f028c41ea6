// Issue 25, point 2: init guesses like a person. The usual shapes of plain exports (CSV snake_case
// with ISO times, NDJSON camelCase with epoch milliseconds, JSON arrays with epoch seconds) get a
// config written without a question, which validate and import (into a real sandbox) take as it is;
// a two-id-column file is a member list; init still asks when two readings are equally likely.
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { guessEntity, guessMap } from '../../dist/pipeline/init/guess-map.js';
import { runCli, sandbox, tempDir } from '../helpers.mjs';

const cols = (...names) => names.map((name) => ({ name, isObject: false, sub: false }));
const ndjson = (rows) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
const csv = (header, rows) => `${[header, ...rows].join('\n')}\n`;

// 2024-01-02T10:00:00Z and two messages on 2024-01-04 at 10:00:00 and 10:01:00, in every spelling.
const CREATED = 1704189600;
const SENT = [1704362400, 1704362460];

/** Each shape: its files (name -> text) and the file that holds the members. */
const SHAPES = {
  'CSV, snake_case columns, ISO times': {
    'users.csv': csv('user_id,name,email_address,created_at', [
      'u1,Ann Lee,ann@example.com,2024-01-02T10:00:00Z',
      'u2,Bob Roy,bob@example.com,2024-01-02T10:00:00Z',
    ]),
    'channels.csv': csv('channel_id,name,created_at', ['c1,general,2024-01-02T10:00:00Z']),
    'channel_members.csv': csv('channel_id,user_id', ['c1,u1', 'c1,u2']),
    'messages.csv': csv('message_id,channel_id,user_id,text,created_at', [
      'm1,c1,u1,"hello, all",2024-01-04T10:00:00Z',
      'm2,c1,u2,hi,2024-01-04T10:01:00.000Z',
    ]),
  },
  'NDJSON, camelCase keys, epoch milliseconds': {
    'users.ndjson': ndjson([
      { id: 'u1', name: 'Ann Lee', email: 'ann@example.com', createdAt: CREATED * 1000 },
      { id: 'u2', name: 'Bob Roy', email: 'bob@example.com', createdAt: CREATED * 1000 },
    ]),
    'rooms.ndjson': ndjson([{ id: 'c1', name: 'general', createdAt: CREATED * 1000 }]),
    'room_members.ndjson': ndjson([
      { roomId: 'c1', userId: 'u1' },
      { roomId: 'c1', userId: 'u2' },
    ]),
    'messages.ndjson': ndjson([
      { id: 'm1', roomId: 'c1', userId: 'u1', text: 'hello, all', createdAt: SENT[0] * 1000 },
      { id: 'm2', roomId: 'c1', userId: 'u2', text: 'hi', createdAt: SENT[1] * 1000 },
    ]),
  },
  'JSON arrays, epoch seconds': {
    'users.json': JSON.stringify([
      { id: 'u1', username: 'ann', name: 'Ann Lee', created: CREATED },
      { id: 'u2', username: 'bob', name: 'Bob Roy', created: CREATED },
    ]),
    'conversations.json': JSON.stringify([{ id: 'c1', name: 'general', created: CREATED }]),
    'participants.json': JSON.stringify([
      { conversationId: 'c1', userId: 'u1' },
      { conversationId: 'c1', userId: 'u2' },
    ]),
    'messages.json': JSON.stringify([
      { id: 'm1', conversationId: 'c1', userId: 'u1', text: 'hello, all', timestamp: SENT[0] },
      { id: 'm2', conversationId: 'c1', userId: 'u2', text: 'hi', timestamp: SENT[1] },
    ]),
  },
};

/** Writes the files into `<fresh dir>/export` and runs init there. */
async function initOn(files, args = []) {
  const dir = await tempDir('cm-guess-');
  await mkdir(path.join(dir, 'export'));
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, 'export', name), text);
  const r = await runCli(['init', 'export', ...args], { cwd: dir });
  return { dir, r };
}

const readConfig = async (dir) => JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));

for (const [shape, files] of Object.entries(SHAPES)) {
  test(`${shape}: init writes a config without a question; validate and import take it`, async (t) => {
    const { dir, r } = await initOn(files);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const config = await readConfig(dir);
    const memberFile = Object.keys(files).find((f) => /members|participants/.test(f));
    assert.equal(config.sources.members.path, `./export/${memberFile}`, 'the two-id file is the member list');
    assert.deepEqual(Object.keys(config.sources).sort(), ['groups', 'members', 'messages', 'users']);

    const v = await runCli(['validate', '--json'], { cwd: dir });
    assert.equal(v.code, 0, `validate\n${v.stdout}\n${v.stderr}`);
    const box = await sandbox();
    t.after(() => box.close());
    // The messages are of 2024: older than the default retention window, which would skip them.
    const flags = ['--base-url', box.url, '--requests-per-minute', '100000', '--retention-days', '0', '--json'];
    const imported = await runCli(['import', ...flags], { cwd: dir });
    assert.equal(imported.code, 0, `import\n${imported.stdout}\n${imported.stderr}`);
    const summary = JSON.parse(imported.stdout);
    const expected = { users: 2, groups: 1, members: 2, messages: 2 };
    for (const [entity, n] of Object.entries(expected)) {
      assert.equal(summary.entities[entity].imported, n, `${entity} imported`);
      assert.equal(summary.entities[entity].rejected, 0, `${entity} rejected`);
    }
    const held = box.records();
    assert.deepEqual(Object.keys(held.members).sort(), ['c1_member_u1', 'c1_member_u2']);
    assert.equal(held.users.u1.createdAt, CREATED, 'the time unit is read right');
    assert.deepEqual(
      ['m1', 'm2'].map((m) => [held.messages[m].sentAt, held.messages[m].receiver, held.messages[m].sender]),
      [
        [SENT[0], 'c1', 'u1'],
        [SENT[1], 'c1', 'u2'],
      ],
    );
    assert.equal(held.messages.m1.data.text, 'hello, all');
  });
}

test('a file of two id columns is members, whatever its name: no time column, so not messages', async () => {
  const { dir, r } = await initOn({
    'data.csv': csv('channel_id,user_id', ['c1,u1', 'c1,u2']),
    'more.ndjson': ndjson([{ roomId: 'c1', userId: 'u1' }]),
  });
  assert.equal(r.code, 3, 'two files of members with different columns still need a word');
  assert.match(r.stdout, /data\.csv: members/);
  assert.match(r.stdout, /more\.ndjson: members/);
  assert.match(r.stdout, /not messages: no column for muid or sentAt/);
  assert.doesNotMatch(r.stdout, /fit members and messages equally/);
  void dir;
});

test('a file named for members, participants or memberships is evidence; columns still count first', () => {
  // id + two ids + a role: columns alone are level between members and messages without a time
  for (const name of ['channel_members.csv', 'participants.json', 'Memberships.ndjson.gz'])
    assert.equal(guessEntity(cols('group', 'user'), name).entity, 'members', name);
  assert.equal(guessEntity(cols('group', 'user')).entity, undefined, 'too little to tell without the name');
  assert.equal(guessEntity(cols('id', 'name', 'created_at'), 'rooms.ndjson').entity, 'groups');
  assert.equal(guessEntity(cols('id', 'name', 'created_at'), 'people.csv').entity, 'users');
  // A clear messages file keeps its columns' reading whatever it is called.
  const messages = cols('message_id', 'channel_id', 'user_id', 'text', 'created_at');
  assert.equal(guessEntity(messages, 'members.csv').entity, 'messages');
  // A user list with a username (a sender's name too) and a generic time is users, not messages.
  assert.equal(guessEntity(cols('id', 'username', 'name', 'created'), 'export.json').entity, 'users');
  // A message file with no time column is still messages, and init then asks for the time column.
  assert.equal(guessEntity(cols('message_id', 'channel_id', 'user_id', 'text')).entity, 'messages');
  // Direct messages as exports spell them: from_user_id is the sender, to_user_id a person.
  const dm = guessMap('messages', cols('id', 'from_user_id', 'to_user_id', 'text', 'created_at'), {});
  assert.deepEqual([dm.map.sender, dm.values.receiverType, dm.missing], ['from_user_id', 'user', []]);
});

test('init still asks when two readings are equally likely, and names the file in the flag', async () => {
  const { dir, r } = await initOn({ 'data.csv': csv('id,name,created_at', ['x1,General,2024-01-02T10:00:00Z']) });
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(r.stdout, /its columns fit users and groups equally/);
  assert.match(r.stdout, /--entity export\/data\.csv=users or --entity export\/data\.csv=groups/);
  await assert.rejects(stat(path.join(dir, '.migrate.config.json')), { code: 'ENOENT' });
  const chosen = await runCli(['init', 'export', '--entity', 'data.csv=groups'], { cwd: dir });
  assert.equal(chosen.code, 0, chosen.stdout + chosen.stderr);
  assert.deepEqual((await readConfig(dir)).sources.groups.map, { guid: 'id', createdAt: 'created_at' });
});
