// userMap / groupMap (issue 17, point 2): export users and groups mapped onto ones the app already has.
// No user is created twice, every reference carries the app's id, mapped records are skipped `mapped`.
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { toVendorId } from '../../dist/systems/shared/ids.js';
import { FIXTURES, readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const ndjson = (rows) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** The app's own users and group, there before the migration (its sign-up made them). */
async function seedApp(sb) {
  const dir = await tempDir();
  await writeFile(
    path.join(dir, 'users.ndjson'),
    ndjson([
      { uid: 'app_alice', name: 'Alice' },
      { uid: 'app_bob', name: 'Bob' },
    ]),
  );
  await writeFile(path.join(dir, 'groups.ndjson'), ndjson([{ guid: 'app_team', name: 'Team', type: 'public' }]));
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    sources: { users: { path: 'users.ndjson' }, groups: { path: 'groups.ndjson' } },
  });
  const r = await runCli(['import'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
}

async function writeExport(dir, extraMessages = []) {
  await writeFile(
    path.join(dir, 'users.ndjson'),
    ndjson([
      { uid: 'alice', name: 'Alice (old)' },
      { uid: 'bob', name: 'Bob (old)', email: 'Bob@Example.com' },
      { uid: 'carol', name: 'Carol' },
    ]),
  );
  await writeFile(
    path.join(dir, 'groups.ndjson'),
    ndjson([
      { guid: 'team', name: 'Team (old)', type: 'public', owner: 'alice' },
      { guid: 'side', name: 'Side', type: 'public', owner: 'bob' },
    ]),
  );
  await writeFile(
    path.join(dir, 'members.ndjson'),
    ndjson(
      ['alice', 'bob', 'carol'].flatMap((uid) => [
        { guid: 'team', uid },
        { guid: 'side', uid },
      ]),
    ),
  );
  const msg = (i, sender, receiverType, receiver, extra = {}) => ({
    muid: `m${i}`,
    sender,
    receiverType,
    receiver,
    sentAt: 1_700_000_000 + i,
    category: 'message',
    type: 'text',
    data: { text: `hi ${i}`, metadata: { mentions: ['alice', 'carol'] } },
    ...extra,
  });
  await writeFile(
    path.join(dir, 'messages.ndjson'),
    ndjson([
      msg(0, 'alice', 'group', 'team'),
      msg(1, 'bob', 'user', 'alice', { senderUserDetails: { uid: 'bob', name: 'Bob' } }),
      msg(2, 'carol', 'group', 'side'),
      ...extraMessages,
    ]),
  );
}

test('userMap (by id and by e-mail) and groupMap: nothing created twice, every reference rewritten', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  await seedApp(sb);
  const dir = await tempDir();
  await writeExport(dir);
  await writeFile(path.join(dir, 'user-map.csv'), 'from,to\nalice,app_alice\nbob@example.com,app_bob\n');
  await writeFile(path.join(dir, 'group-map.json'), JSON.stringify([{ from: 'team', to: 'app_team' }]));
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    userMap: 'user-map.csv',
    groupMap: 'group-map.json',
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.ndjson' },
      members: { path: 'members.ndjson' },
      messages: { path: 'messages.ndjson' },
    },
  });
  const validate = await runCli(['validate', '--json'], { cwd: dir });
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);

  const r = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.entities.users.skippedBy.mapped, 2);
  assert.equal(summary.entities.groups.skippedBy.mapped, 1);

  const held = sb.records();
  assert.deepEqual(Object.keys(held.users).sort(), ['app_alice', 'app_bob', 'carol'], 'no user created twice');
  assert.equal(held.users.app_alice.name, 'Alice', 'the app user is left as it was');
  assert.deepEqual(Object.keys(held.groups).sort(), ['app_team', 'side']);
  assert.equal(held.groups.side.owner, 'app_bob');
  assert.deepEqual(Object.keys(held.members).sort(), [
    'app_team_member_app_alice',
    'app_team_member_app_bob',
    'app_team_member_carol',
    'side_member_app_alice',
    'side_member_app_bob',
    'side_member_carol',
  ]);
  const senders = Object.fromEntries(Object.entries(held.messages).map(([id, m]) => [id, m.sender]));
  assert.deepEqual(senders, { m0: 'app_alice', m1: 'app_bob', m2: 'carol' });
  assert.equal(held.messages.m0.receiver, 'app_team');
  assert.equal(held.messages.m1.receiver, 'app_alice');
  assert.deepEqual(held.messages.m0.data.metadata.mentions, ['app_alice', 'carol']);
  assert.equal(held.messages.m1.senderUserDetails.uid, 'app_bob');

  // The mapping used is recorded beside the checkpoint; the source files are left as they were.
  const ids = await readNdjson(path.join(dir, '.migrate-checkpoint.ids.ndjson'));
  assert.deepEqual(ids.map((l) => `${l.entity} ${l.sourceId} ${l.id}`).sort(), [
    'groups team app_team',
    'users alice app_alice',
    'users bob app_bob',
  ]);
  assert.match(await readFile(path.join(dir, 'messages.ndjson'), 'utf8'), /"sender":"alice"/);
});

test('validate lists references to users neither in the export nor in the map', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await tempDir();
  const stranger = {
    muid: 'm9',
    sender: 'zed',
    receiverType: 'user',
    receiver: 'app_alice',
    sentAt: 1_700_000_100,
    category: 'message',
    type: 'text',
    data: { text: 'who?' },
  };
  await writeExport(dir, [stranger]);
  await writeFile(path.join(dir, 'user-map.json'), JSON.stringify([{ from: 'alice', to: 'app_alice' }]));
  await writeConfig(dir, {
    baseUrl: sb.url,
    userMap: 'user-map.json',
    sources: { users: { path: 'users.ndjson' }, messages: { path: 'messages.ndjson' } },
  });
  const r = await runCli(['validate', '--json'], { cwd: dir });
  assert.equal(r.code, 3, r.stderr);
  const doc = JSON.parse(r.stdout);
  const refs = doc.problems.filter((e) => e.rule.startsWith('ref.'));
  assert.deepEqual(
    refs.map((e) => `${e.id} ${e.rule} ${e.field}`),
    ['m9 ref.message.sender sender'],
    'zed is neither in the export nor in the map; app_alice (a map target) and bob are fine',
  );
});

test('the same map works for a preset: a Slack export mapped by e-mail and by Slack id', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  await seedApp(sb);
  const dir = await tempDir();
  const from = path.join(dir, 'slack');
  await cp(path.join(FIXTURES, 'presets', 'slack'), from, { recursive: true });
  const usersFile = path.join(from, 'users.json');
  const users = JSON.parse(await readFile(usersFile, 'utf8'));
  users.find((u) => u.id === 'U0BMQB6JE').profile.email = 'Alice@Example.com';
  await writeFile(usersFile, JSON.stringify(users));
  await writeFile(path.join(dir, 'user-map.csv'), 'from,to\nalice@example.com,app_alice\nU0BMS113R,app_bob\n');
  await writeConfig(dir, { baseUrl: sb.url, requestsPerMinute: 1e9, userMap: 'user-map.csv' });
  const r = await runCli(['import', '--json', '--preset', 'slack', '--from', 'slack'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).entities.users.skippedBy.mapped, 2);
  const mappedAway = [toVendorId('U0BMQB6JE'), toVendorId('U0BMS113R')];
  const held = sb.records();
  for (const uid of mappedAway) assert.equal(held.users[uid], undefined, `${uid} is not created beside the app's`);
  const senders = Object.values(held.messages).map((m) => m.sender);
  assert.ok(senders.filter((s) => s === 'app_alice').length > 10);
  assert.ok(senders.filter((s) => s === 'app_bob').length > 10);
  assert.ok(!senders.some((s) => mappedAway.includes(s)));
});
