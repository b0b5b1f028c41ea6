// The map stage: source records -> API payloads, problems and skips.
// Build first: npx tsc -p tsconfig.json
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMapper } from '../../../dist/pipeline/map/map.js';
import { toUnixSeconds } from '../../../dist/entities/timestamps.js';
import { ENTITIES } from '../../../dist/entities/index.js';

/** @typedef {import('../../../dist/entities/types.js').SourceRecord} SourceRecord */
/** @type {(value: Record<string, unknown>, extra?: object) => SourceRecord} */
const record = (value, extra = {}) => ({ kind: 'record', value, file: 'x.csv', line: 7, ordinal: 3, ...extra });
const mapOne = (entity, value, options = {}, extra = {}) =>
  createMapper({ entity: ENTITIES[entity], ...options })(record(value, extra));
const rules = (mapped) => mapped.problems.map((p) => p.rule);

test('toUnixSeconds: seconds, milliseconds, numeric strings, Slack ts, ISO-8601', () => {
  const cases = [
    [1700000000, 1700000000],
    [1700000000.9, 1700000000],
    [1700000000123, 1700000000],
    [1700000000123456, 1700000000],
    ['1700000000', 1700000000],
    [' 1700000000123 ', 1700000000],
    ['1452837318.000002', 1452837318],
    ['2023-11-14T22:13:20Z', 1700000000],
    ['2023-11-14T22:13:20.999Z', 1700000000],
    ['2023-11-14 22:13:20', 1700000000],
    ['2023-11-15T03:43:20+05:30', 1700000000],
    ['2023-11-14T17:13:20-0500', 1700000000],
    ['2023-11-14', 1699920000],
    [new Date(1700000000000), 1700000000],
  ];
  for (const [input, expected] of cases) assert.equal(toUnixSeconds(input), expected, String(input));
  for (const bad of [
    'yesterday',
    '',
    '2023-02-30',
    '2023-13-01',
    '2023-11-14T25:00:00Z',
    null,
    undefined,
    true,
    {},
    NaN,
    Infinity,
  ]) {
    assert.equal(toUnixSeconds(bad), undefined, String(bad));
  }
});

test("the entities' fields follow the contract table", () => {
  const KNOWN_FIELDS = Object.fromEntries(Object.values(ENTITIES).map((e) => [e.name, e.fields]));
  assert.ok(KNOWN_FIELDS.users.includes('deactivatedAt'));
  assert.ok(KNOWN_FIELDS.groups.includes('description'));
  assert.ok(KNOWN_FIELDS.members.includes('memberId'));
  assert.ok(!KNOWN_FIELDS.messages.includes('deletedAt'));
});

test('CSV-style record: dotted keys expand, JSON text parses, timestamps convert', () => {
  const source = {
    muid: 'm1',
    sender: 'u1',
    receiverType: 'user',
    receiver: 'u2',
    sentAt: '2023-11-14T22:13:20Z',
    'data.text': '[1]',
    'data.metadata': '{"plan":"pro"}',
    tags: '["a","b"]',
    senderUserDetails: '{"name":"Ann"}',
    'data.attachments': '[{"url":"https://x/a.png"}]',
  };
  const mapped = mapOne('messages', source);
  assert.deepEqual(mapped.payload, {
    muid: 'm1',
    sender: 'u1',
    receiverType: 'user',
    receiver: 'u2',
    sentAt: 1700000000,
    data: { text: '[1]', metadata: { plan: 'pro' }, attachments: [{ url: 'https://x/a.png' }] },
    tags: ['a', 'b'],
    senderUserDetails: { name: 'Ann' },
  });
  assert.equal(mapped.id, 'm1');
  assert.deepEqual(mapped.problems, []);
  assert.equal(mapped.source, source, 'the original record is kept for rejects');
  assert.equal(source['data.metadata'], '{"plan":"pro"}', 'and left untouched');
  const nested = mapOne('messages', {
    muid: 'm',
    'data.text': 'x',
    'data.metadata.plan': 'pro',
    'data.metadata.x': '{bad',
  });
  assert.deepEqual(nested.payload.data, { text: 'x', metadata: { plan: 'pro', x: '{bad' } });
  const badNested = mapOne('messages', { muid: 'm', 'data.metadata': '{bad' });
  assert.deepEqual(
    badNested.problems.map((p) => [p.rule, p.field]),
    [['field.json', 'data.metadata']],
  );
  assert.deepEqual([mapped.entity, mapped.file, mapped.line, mapped.ordinal], ['messages', 'x.csv', 7, 3]);
});

test('bad JSON text keeps the string with a field.json error; bad timestamp a timestamp.invalid error', () => {
  const mapped = mapOne('users', { uid: 'u1', name: 'A', metadata: '{oops', tags: 'a,b', createdAt: 'last week' });
  assert.equal(mapped.payload.metadata, '{oops');
  assert.equal(mapped.payload.tags, 'a,b');
  assert.equal(mapped.payload.createdAt, 'last week');
  assert.deepEqual(rules(mapped), ['field.json', 'field.json', 'timestamp.invalid']);
  assert.deepEqual(
    mapped.problems.map((p) => [p.severity, p.field]),
    [
      ['error', 'metadata'],
      ['error', 'tags'],
      ['error', 'createdAt'],
    ],
  );
});

test('map renames move values, dotted on both sides, swaps included; the source is not modified', () => {
  const source = {
    ts: '1452837318.000002',
    user: { id: 'u1', name: 'Ann' },
    channel: 'c1',
    receiverType: 'group',
    body: { text: 'hello', extra: 1 },
    sentAt: 1452837318,
  };
  const map = {
    muid: 'ts',
    sender: 'user.id',
    receiver: 'channel',
    'data.text': 'body.text',
    'data.metadata.extra': 'body.extra',
  };
  const mapped = mapOne('messages', source, { map });
  assert.deepEqual(mapped.payload, {
    receiverType: 'group',
    sentAt: 1452837318,
    muid: '1452837318.000002',
    sender: 'u1',
    receiver: 'c1',
    data: { text: 'hello', metadata: { extra: 1 } },
  });
  assert.deepEqual(source.user, { id: 'u1', name: 'Ann' });
  assert.deepEqual(source.body, { text: 'hello', extra: 1 });
  // user.name was left behind in "user": reported; "body" and "channel" were used up: not reported
  assert.deepEqual(
    mapped.problems.map((p) => [p.rule, p.field]),
    [['field.unknown', 'user']],
  );

  const swapped = mapOne(
    'messages',
    { muid: 'm', sender: 'b', receiver: 'a' },
    { map: { sender: 'receiver', receiver: 'sender' } },
  );
  assert.deepEqual([swapped.payload.sender, swapped.payload.receiver], ['a', 'b']);
  const intoNested = mapOne('messages', { muid: 'm', data: 'plain text' }, { map: { 'data.text': 'data' } });
  assert.deepEqual(intoNested.payload.data, { text: 'plain text' });
  const emptied = mapOne('messages', { muid: 'm', 'data.from.id': 'u1' }, { map: { sender: 'data.from.id' } });
  assert.deepEqual(emptied.payload, { muid: 'm', sender: 'u1' }, 'no empty data: {} left behind');
});

test('booleans from text; members get memberId; id-keyed records take their id from the key', () => {
  const member = mapOne('members', { guid: 'g1', uid: 'u1', isBanned: 'TRUE', joinedAt: '1700000000000' });
  assert.deepEqual(member.payload, {
    guid: 'g1',
    uid: 'u1',
    isBanned: true,
    joinedAt: 1700000000,
    memberId: 'g1_member_u1',
  });
  assert.equal(member.id, 'g1_member_u1');
  assert.equal(mapOne('members', { guid: 'g', uid: 'u', isBanned: '0' }).payload.isBanned, false);
  assert.equal(mapOne('members', { guid: 'g', uid: 'u', isBanned: 'maybe' }).payload.isBanned, 'maybe');

  const fromKey = mapOne('members', { scope: 'admin' }, {}, { key: 'g2_member_u2' });
  assert.equal(fromKey.id, 'g2_member_u2');
  assert.deepEqual([fromKey.payload.guid, fromKey.payload.uid], ['g2', 'u2']);
  const user = mapOne('users', { name: 'A' }, {}, { key: 'u9' });
  assert.deepEqual([user.id, user.payload.uid], ['u9', 'u9']);
  const kept = mapOne('users', { uid: 'inside', name: 'A' }, {}, { key: 'outside' });
  assert.equal(kept.id, 'inside');
});

test('unknown fields are dropped and reported once per mapper, on the first record that has them', () => {
  const mapper = createMapper({ entity: ENTITIES.users });
  const first = mapper(record({ uid: 'u1', name: 'A', email: 'a@x', 'profile.bio': 'hi' }));
  const second = mapper(record({ uid: 'u2', name: 'B', email: 'b@x', shoe: 42 }));
  assert.deepEqual(first.payload, { uid: 'u1', name: 'A' });
  assert.deepEqual(second.payload, { uid: 'u2', name: 'B' });
  assert.deepEqual(
    first.problems.map((p) => [p.rule, p.severity, p.field]),
    [
      ['field.unknown', 'warning', 'email'],
      ['field.unknown', 'warning', 'profile.bio'],
    ],
  );
  assert.deepEqual(
    second.problems.map((p) => p.field),
    ['shoe'],
  );
  const otherFile = createMapper({ entity: ENTITIES.users })(record({ uid: 'u3', name: 'C', email: 'c@x' }));
  assert.deepEqual(
    otherFile.problems.map((p) => p.field),
    ['email'],
  );
});

test('deletion markers: permanent and soft skips; deletedAt/deleted never sent', () => {
  const base = {
    muid: 'm1',
    sender: 'u1',
    receiverType: 'user',
    receiver: 'u2',
    sentAt: 1700000000,
    data: { text: 'x' },
  };
  assert.equal(mapOne('messages', { ...base, deleted: 'permanent' }).skip, 'permanently-deleted');
  const soft = mapOne('messages', { ...base, deletedAt: '2023-11-15T00:00:00Z' });
  assert.equal(soft.skip, 'soft-deleted');
  assert.ok(!('deletedAt' in soft.payload));
  const live = mapOne('messages', { ...base, deletedAt: null, deleted: false });
  assert.equal(live.skip, undefined);
  assert.deepEqual(live.payload, base);
  assert.deepEqual(live.problems, []);

  const imported = mapOne(
    'messages',
    { ...base, deletedAt: 1700000500000, deleted: 'soft' },
    { importSoftDeleted: true },
  );
  assert.equal(imported.skip, undefined);
  assert.deepEqual(imported.payload, { ...base, data: { text: 'x', metadata: { deletedAt: 1700000500 } } });
  assert.deepEqual(base.data, { text: 'x' }, 'the shared nested object was copied, not changed');
  assert.equal(
    mapOne('messages', { ...base, deleted: 'permanent', deletedAt: 1 }, { importSoftDeleted: true }).skip,
    'permanently-deleted',
  );

  const custom = { softField: 'meta.removed_ts', permanentField: 'state', permanentValue: 'purged' };
  assert.equal(mapOne('messages', { ...base, state: 'purged' }, { deletion: custom }).skip, 'permanently-deleted');
  const nested = mapOne(
    'messages',
    { ...base, meta: { removed_ts: '1700000600' } },
    { deletion: custom, importSoftDeleted: true },
  );
  assert.deepEqual(/** @type {any} */ (nested.payload).data.metadata, { deletedAt: 1700000600 });
  assert.ok(!('meta' in nested.payload));
  assert.deepEqual(nested.problems, []);
});

test('sinceSec skips older messages only', () => {
  const options = { sinceSec: 1700000000 };
  const msg = (sentAt) => ({ muid: 'm', sender: 'u1', receiverType: 'user', receiver: 'u2', sentAt });
  assert.equal(mapOne('messages', msg(1699999999), options).skip, 'before-since');
  assert.equal(mapOne('messages', msg('2023-11-14T22:13:19Z'), options).skip, 'before-since');
  assert.equal(mapOne('messages', msg(1700000000), options).skip, undefined);
  assert.equal(mapOne('messages', msg(1700000001000), options).skip, undefined);
});

test('a message left out by its preset keeps that reason when it is also too old', () => {
  const options = { retentionCutoffSec: 1700000000 };
  const msg = { muid: 'm', sender: 'u1', receiverType: 'group', receiver: 'g1', sentAt: 1600000000 };
  assert.equal(mapOne('messages', msg, options).skip, 'beyond-retention');
  assert.equal(mapOne('messages', msg, options, { skip: 'join-leave' }).skip, 'join-leave');
  assert.equal(mapOne('messages', { ...msg, sentAt: 1700000001 }, options).skip, undefined);
});

test('hostile keys do not reach the prototype', () => {
  const value = JSON.parse('{"uid":"u1","name":"A","__proto__":{"polluted":1},"metadata.__proto__.polluted":"1"}');
  const mapped = mapOne('users', value);
  assert.equal({}.polluted, undefined);
  assert.equal(Object.getPrototypeOf(mapped.payload), Object.prototype);
  assert.equal(mapped.payload.polluted, undefined);
});

test(
  'a deletion time that is not a timestamp is reported, ' +
    'whatever the other fields hold (with --import-soft-deleted)',
  () => {
    const base = {
      muid: 'm1',
      sender: 'u1',
      receiverType: 'group',
      receiver: 'g1',
      type: 'text',
      data: { text: 'x' },
      deletedAt: 'garbage',
    };
    // sentAt already in seconds: no other field needs a conversion step, the marker alone must bring it.
    for (const sentAt of [1_700_000_000, '1700000000']) {
      const mapped = mapOne('messages', { ...base, sentAt }, { importSoftDeleted: true });
      assert.deepEqual(rules(mapped), ['timestamp.invalid'], `sentAt ${JSON.stringify(sentAt)}`);
      assert.equal(mapped.problems[0].field, 'deletedAt');
    }
    // A dotted column under a timestamp field is checked as that field.
    assert.deepEqual(rules(mapOne('messages', { ...base, deletedAt: undefined, sentAt: undefined, 'sentAt.x': 5 })), [
      'timestamp.invalid',
    ]);
  },
);
