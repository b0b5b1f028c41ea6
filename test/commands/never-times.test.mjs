// Times that mean "never" (issue 14, "exports' odd values"): one definition (before 1970-01-02) in
// entities/timestamps.ts; presets read it as absent, plain sources get a warning and the field left
// out, a message's sentAt an error, and the sandbox refuses such a value sent to it.
// Build first: npm run build
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { isNeverTime, NEVER_BEFORE, toUnixSeconds } from '../../dist/entities/timestamps.js';
import { ENTITIES } from '../../dist/entities/index.js';
import { createMapper } from '../../dist/pipeline/map/map.js';
import { seconds, sentSeconds } from '../../dist/systems/shared/message-parts.js';
import { API_KEY, FIXTURES, readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { byId, plan, PRESET_FIXTURES, readPlans } from '../presets-helpers.mjs';

const SENDBIRD_EPOCH = '1970-01-01 00:59:59+0100';

test('one definition: any instant before 1970-01-02T00:00:00Z, however an export writes it', () => {
  assert.equal(NEVER_BEFORE, 86_400);
  /** @type {Array<[string | number, number]>} */
  const never = [
    [SENDBIRD_EPOCH, -1],
    ['1970-01-01T00:00:00-05:00', 18_000],
    ['1969-12-31T23:59:59Z', -1],
    ['0001-01-01T00:00:00Z', -62_135_596_800], // Go's zero time, not 1901
    ['0099-12-31T00:00:00Z', -59_011_545_600],
    [0, 0],
    ['-1', -1],
    [86_399, 86_399],
  ];
  for (const [value, expected] of never) {
    assert.equal(toUnixSeconds(value), expected, String(value));
    assert.equal(isNeverTime(expected), true, String(value));
  }
  assert.equal(isNeverTime(86_400), false);
  assert.equal(isNeverTime(toUnixSeconds('2024-04-01T09:00:00+02:00')), false);
});

test('presets: seconds() reads "never" as absent; sentSeconds() keeps it for validation to refuse', () => {
  for (const v of [SENDBIRD_EPOCH, '0001-01-01T00:00:00Z', -1, 0, '0', 5, undefined, null, '']) {
    assert.equal(seconds(v), undefined, String(v));
  }
  assert.equal(seconds('1970-01-02T00:00:00Z'), 86_400);
  assert.equal(sentSeconds(SENDBIRD_EPOCH), -1);
  assert.equal(sentSeconds('0001-01-01T00:00:00Z'), -62_135_596_800);
  // Absent or 0: no time at all (the preset skips the message as no-timestamp).
  for (const v of [undefined, null, '', 0]) assert.equal(sentSeconds(v), undefined, String(v));
  // The first real time wins over a "never" in an earlier field (Telegram: date_unixtime, then date).
  assert.equal(sentSeconds('0', '2024-04-01T09:00:00Z'), 1_711_962_000);
  assert.equal(sentSeconds('0', 'not a date'), 0);
});

const map = (entity, value) =>
  createMapper({ entity: ENTITIES[entity] })({ kind: 'record', value, file: 'x.ndjson', line: 7, ordinal: 6 });
const brief = (r) => r.problems.map((p) => `${p.rule} ${p.field} ${p.severity}`);

test('mapper: an optional "never" is left out with a timestamp.never warning; sentAt and deletedAt keep theirs', () => {
  const zero = '0001-01-01T00:00:00Z';
  const user = map('users', { uid: 'u1', name: 'U', createdAt: 0, lastActiveAt: SENDBIRD_EPOCH, deactivatedAt: zero });
  assert.deepEqual(user.payload, { uid: 'u1', name: 'U' });
  const fields = ['createdAt', 'lastActiveAt', 'deactivatedAt'];
  assert.deepEqual(
    brief(user),
    fields.map((f) => `timestamp.never ${f} warning`),
  );
  const why = /lastActiveAt "1970-01-01 00:59:59\+0100" means "never" \(before 1970-01-02\): it is left out/;
  assert.match(user.problems[1].message, why);
  const member = map('members', { guid: 'g', uid: 'u', joinedAt: -1 });
  assert.equal('joinedAt' in member.payload, false);
  assert.deepEqual(brief(member), ['timestamp.never joinedAt warning']);
  const group = map('groups', { guid: 'g', name: 'G', type: 'public', createdAt: 86_399 });
  assert.deepEqual(brief(group), ['timestamp.never createdAt warning']);
  // The first real time passes untouched, on the fast path too.
  const real = { guid: 'g', name: 'G', type: 'public', createdAt: 86_400 };
  assert.equal(map('groups', real).payload, real);

  const base = { muid: 'm', sender: 'u', receiverType: 'user', receiver: 'v', type: 'text', data: { text: 'x' } };
  const message = map('messages', { ...base, sentAt: 0, deliveredAt: '0', readAt: SENDBIRD_EPOCH });
  assert.deepEqual(message.payload, { ...base, sentAt: 0 }, 'sentAt is required: it stays, for the rule to refuse');
  assert.deepEqual(brief(message), ['timestamp.never deliveredAt warning', 'timestamp.never readAt warning']);
  // A deletion time of 0 still means "not deleted"; a negative one is a mark as before.
  assert.equal(map('messages', { ...base, sentAt: 1_700_000_000, deletedAt: 0 }).skip, undefined);
  assert.equal(map('messages', { ...base, sentAt: 1_700_000_000, deletedAt: SENDBIRD_EPOCH }).skip, 'soft-deleted');
});

test('sendbird: no lastActiveAt if never logged in, no "never" joinedAt; a never sentAt is an error', async () => {
  const dir = path.join(await tempDir(), 'export');
  await cp(path.join(PRESET_FIXTURES, 'sendbird'), dir, { recursive: true });
  const edit = async (rel, change) => {
    const file = path.join(dir, rel);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    change(doc);
    await writeFile(file, JSON.stringify(doc, null, 2));
  };
  await edit('users/active_users.json', (d) => {
    d.active_users.find((u) => u.user_id === 'alice').last_seen_at = SENDBIRD_EPOCH;
    d.active_users.find((u) => u.user_id === 'bob').created_at = '0001-01-01T00:00:00Z';
  });
  await edit('users/deactivated_users.json', (d) => {
    d.deactivated_users[0].last_seen_at = '1970-01-01 01:00:00+0100';
  });
  await edit('channels/group_channels.json', (d) => {
    d.group_channels[0].members[0].joined_ts = -1;
    d.group_channels[0].members[1].joined_ts = 1_650_000_100;
  });
  await edit('messages/sendbird_group_channel_team.json', (d) => {
    d.messages[1].created_at = SENDBIRD_EPOCH;
  });
  const r = await readPlans((await plan('sendbird', dir)).plans);
  for (const e of ['users', 'groups', 'members']) assert.deepEqual(r[e].errors, [], e);
  const users = byId(r.users.sent, 'uid');
  assert.equal(users.alice.lastActiveAt, undefined);
  assert.equal(users.alice.createdAt, 1_640_995_200);
  assert.equal(users.bob.createdAt, undefined);
  assert.equal(users.bob.lastActiveAt, 1_651_000_100);
  assert.equal(users.eve.deactivatedAt, 1_640_995_600, 'no last time known: the deactivation falls back to created_at');
  const team = byId(
    r.members.sent.filter((m) => m.guid === 'sendbird_group_channel_team'),
    'uid',
  );
  assert.deepEqual([team.alice.joinedAt, team.bob.joinedAt], [undefined, 1_650_000_100]);
  for (const e of ['users', 'groups', 'members', 'messages']) {
    // readPlans lists every record it checked, the refused message too: that one is asserted below.
    const sent = r[e].sent.filter((x) => x.muid !== '1002');
    for (const record of sent) {
      for (const [k, v] of Object.entries(record)) {
        if (k.endsWith('At')) assert.ok(Number(v) >= NEVER_BEFORE, `${e} ${k} ${v}`);
      }
    }
  }
  assert.deepEqual(
    r.messages.errors.map((p) => `${p.id} ${p.rule} ${p.field}`),
    ['1002 timestamp.invalid sentAt'],
  );
});

test('the sandbox refuses a "never" time sent to it, as the service would; 1970-01-02 is the first', async (t) => {
  const s = await sandbox();
  t.after(() => s.close());
  const post = async (entity, key, record) => {
    const res = await fetch(`${s.url}/v3.0/data_import/${entity}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: API_KEY },
      body: JSON.stringify({ [entity]: { [key]: record } }),
    });
    return /** @type {any} */ (await res.json()).data[key];
  };
  const msg = (muid, extra) => ({
    muid,
    sender: 'u1',
    receiverType: 'user',
    receiver: 'u2',
    sentAt: 1_700_000_000,
    type: 'text',
    data: { text: 'x' },
    ...extra,
  });
  for (const [i, createdAt] of [0, -1, '0', 86_399].entries()) {
    const answer = await post('users', `u${i}`, { uid: `u${i}`, name: 'U', createdAt });
    assert.equal(answer.success, false, `createdAt ${createdAt}`);
    assert.equal(answer.error.code, 'ERR_IMPORT_INVALID_USER_FORMAT');
  }
  const lastActive = await post('users', 'u9', { uid: 'u9', name: 'U', lastActiveAt: 0 });
  assert.match(lastActive.error.message, /lastActiveAt must be 10-digit UNIX seconds/);
  const joined = await post('members', 'g1_member_u1', { guid: 'g1', uid: 'u1', joinedAt: 0 });
  assert.equal(joined.error.code, 'ERR_IMPORT_INVALID_MEMBER_FORMAT');
  /** @type {Array<[string, object]>} */
  const refused = [
    ['m1', { sentAt: 0 }],
    ['m2', { readAt: -1 }],
  ];
  for (const [muid, time] of refused) {
    assert.equal((await post('messages', muid, msg(muid, time))).error.code, 'ERR_IMPORT_INVALID_MESSAGE_FORMAT', muid);
  }
  assert.equal((await post('users', 'u8', { uid: 'u8', name: 'U', createdAt: 86_400 })).success, true);
  assert.equal((await post('messages', 'm3', msg('m3', { deliveredAt: 1_700_000_001 }))).success, true);
  assert.deepEqual(Object.keys(s.records().users), ['u8']);
});

test('import: the "never" fields are left out of what the sandbox stores; a never sentAt is rejected', async () => {
  const sb = await sandbox();
  try {
    const dir = await tempDir();
    await cp(path.join(FIXTURES, 'invalid', 'odd'), dir, { recursive: true });
    const base = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
    await writeConfig(dir, { ...base, baseUrl: sb.url, requestsPerMinute: 6000 });
    const run = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    const stored = sb.records();
    assert.deepEqual(stored.users.bob, { uid: 'bob', name: 'Bob' });
    assert.equal(stored.groups.team.createdAt, undefined);
    assert.equal(stored.members.team_member_ann.joinedAt, undefined);
    assert.equal(stored.messages.m2.deliveredAt, undefined);
    assert.equal(stored.messages.m2.readAt, undefined);
    assert.equal(stored.messages.m3, undefined);
    // The sandbox refused nothing: the tool sent no "never" value.
    for (const e of ['users', 'groups', 'members', 'messages']) assert.equal(sb.stats().perEntity[e].rejected, 0, e);
    const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
    const m3 = rejects.find((r) => r.id === 'm3');
    assert.deepEqual([m3.line, m3.code, m3.field], [3, 'timestamp.invalid', 'sentAt']);
  } finally {
    await sb.close();
  }
});
