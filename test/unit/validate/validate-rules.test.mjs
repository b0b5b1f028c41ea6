// Unit tests of the validation rules: pass 1 (validateRecord) and pass 2 (ExportIndex, IdIndex).
// Build first: npx tsc -p tsconfig.json
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RULES,
  validateRecord,
  ExportIndex,
  IdIndex,
  ID_NEW,
  ID_DUPLICATE,
  ID_CASE_COLLISION,
} from '../../../dist/rules/index.js';
import { createMapper } from '../../../dist/pipeline/map/map.js';
import { heldBackProblem } from '../../../dist/rules/blocked-parents.js';
import { ENTITIES } from '../../../dist/entities/index.js';

const NOW = 1_700_000_000;
/** @type {Set<import('../../../dist/entities/types.js').EntityName>} */
const ALL = new Set(['users', 'groups', 'members', 'messages']);
const F = 'data.interactiveData.formFields';
const SEVERITY = new Map(RULES.map((r) => [r.code, r.severity]));
/** Codes some test below saw emitted on its own; the last test checks every rule is covered. */
const covered = new Set();

const formFields = () => [
  { elementType: 'label', elementId: 'l1', text: 'Order form' },
  {
    elementType: 'textInput',
    elementId: 't1',
    optional: false,
    label: 'Name',
    maxLines: 2,
    placeholder: { text: 'Your name' },
  },
  {
    elementType: 'button',
    elementId: 'b1',
    buttonText: 'Open',
    disableAfterInteracted: true,
    action: { actionType: 'urlNavigation', url: 'https://example.com/go' },
  },
  {
    elementType: 'button',
    elementId: 'b2',
    buttonText: 'Send',
    action: {
      actionType: 'apiAction',
      url: 'https://api.example.com/x',
      method: 'POST',
      payload: { a: 1 },
      headers: { h: 'v' },
      dataKey: 'k',
    },
  },
  { elementType: 'button', elementId: 'b3', action: { actionType: 'deepLinkAction', url: 'myapp://orders/1' } },
  { elementType: 'button', elementId: 'b4', action: { actionType: 'customAction' } },
  {
    elementType: 'checkbox',
    elementId: 'c1',
    label: 'Toppings',
    defaultValue: ['a'],
    options: [
      { value: 'a', label: 'A' },
      { value: 'b', label: 'B' },
    ],
  },
  {
    elementType: 'dropdown',
    elementId: 'd1',
    label: 'Size',
    defaultValue: 's',
    options: [{ value: 's', label: 'Small' }],
  },
  {
    elementType: 'radio',
    elementId: 'r1',
    defaultValue: 'y',
    options: [
      { value: 'y', label: 'Yes' },
      { value: 'n', label: 'No' },
    ],
  },
  { elementType: 'singleSelect', elementId: 's1', options: [{ value: '1', label: 'One' }] },
  {
    elementType: 'dateTime',
    elementId: 'dt1',
    label: 'When',
    defaultValue: false,
    dateTimeFormat: 'yyyy-MM-dd',
    mode: 'date',
    timezoneCode: 'Asia/Kolkata',
    from: '2024-02-29',
    to: '2024-03-31',
  },
];

const BASE = {
  users: {
    uid: 'u1',
    name: 'Ann Lee',
    avatar: 'https://cdn.example.com/a/u1.png',
    link: 'https://example.com/u/u1',
    role: 'default',
    createdAt: 1_600_000_000,
    lastActiveAt: 1_650_000_000,
    metadata: { plan: 'pro' },
    tags: ['vip', '日本語'],
  },
  groups: {
    guid: 'g1',
    name: 'General',
    type: 'password',
    password: 's3cret',
    owner: 'u1',
    icon: 'https://cdn.example.com/g1.png',
    createdAt: 1_600_000_100,
    metadata: {},
    tags: ['team'],
  },
  members: {
    memberId: 'g1_member_u1',
    guid: 'g1',
    uid: 'u1',
    scope: 'admin',
    isBanned: false,
    joinedAt: 1_600_000_100,
  },
  messages: {
    muid: 'm1',
    sender: 'u1',
    receiverType: 'group',
    receiver: 'g1',
    category: 'message',
    type: 'text',
    sentAt: 1_600_000_200,
    deliveredAt: 1_600_000_201,
    readAt: 1_600_000_300,
    tags: ['imported'],
    data: {
      text: 'hello <@uid:u2>',
      metadata: { source: 'legacy' },
      attachments: [
        {
          url: 'https://cdn.example.com/f/report.pdf',
          name: 'report.pdf',
          mimeType: 'application/pdf',
          extension: 'pdf',
          size: '2048',
        },
      ],
      interactiveData: { formFields: formFields() },
    },
  },
};
const ID_FIELD = { users: 'uid', groups: 'guid', messages: 'muid' };

/**
 * A mapped record of `entity` built from the valid base, changed by `edit`.
 * @param {string} entity
 * @param {(payload: any) => void} [edit]
 * @param {object} [extra]
 */
function rec(entity, edit = () => {}, extra = {}) {
  const payload = structuredClone(BASE[entity]);
  edit(payload);
  const id =
    entity === 'members'
      ? `${payload.guid ?? ''}_member_${payload.uid ?? ''}`
      : String(payload[ID_FIELD[entity]] ?? '');
  return { entity, payload, id, source: {}, file: `${entity}.csv`, line: 2, ordinal: 0, problems: [], ...extra };
}

/** Asserts that the record yields exactly one problem, of `code` at `field`, with the rule's severity. */
function only(record, code, field) {
  const problems = validateRecord(record, NOW);
  assert.deepEqual(
    problems.map((p) => [p.rule, p.field]),
    [[code, field]],
    JSON.stringify(problems),
  );
  assert.equal(problems[0].severity, SEVERITY.get(code));
  assert.ok(problems[0].message.length > 0);
  covered.add(code);
  return problems[0];
}

const clean = (record) => assert.deepEqual(validateRecord(record, NOW), []);

test('RULES: unique dotted codes, known severities, described', () => {
  const codes = RULES.map((r) => r.code);
  assert.equal(new Set(codes).size, codes.length);
  for (const r of RULES) {
    assert.match(r.code, /^[a-z]+(\.[a-z-]+)+$/, r.code);
    assert.ok(r.severity === 'error' || r.severity === 'warning', r.code);
    assert.ok(['users', 'groups', 'members', 'messages', 'any'].includes(r.entity), r.code);
    assert.ok(r.description.length > 20, r.code);
  }
  assert.equal(SEVERITY.get('group.large'), 'warning');
  assert.equal(SEVERITY.get('timestamp.before-sent'), 'warning');
  assert.equal(SEVERITY.get('id.duplicate'), 'error');
});

test('a fully valid record of each entity has no problems, in either pass', () => {
  const index = new ExportIndex({ configured: ALL, nowSec: NOW });
  for (const entity of ['users', 'groups', 'members', 'messages']) {
    const record = rec(entity);
    clean(record);
    assert.deepEqual(index.check(record), [], entity);
  }
  assert.deepEqual(index.finish(), []);
  assert.deepEqual(index.uncheckedReferences(), []);
});

test('ids: required, type, length, charset, mismatch', () => {
  only(
    rec('users', (p) => delete p.uid),
    'id.required',
    'uid',
  );
  only(
    rec('members', (p) => (p.guid = '')),
    'id.required',
    'guid',
  );
  only(
    rec('messages', (p) => (p.muid = 42)),
    'id.type',
    'muid',
  );
  only(
    rec('users', (p) => (p.uid = 'a'.repeat(101))),
    'id.too-long',
    'uid',
  );
  clean(rec('users', (p) => (p.uid = 'a'.repeat(100))));
  const charset = only(
    rec('users', (p) => (p.uid = 'ann lee')),
    'id.charset',
    'uid',
  );
  assert.match(charset.message, /U\+0020/);
  only(
    rec('members', (p) => (p.uid = 'ü1')),
    'id.charset',
    'uid',
  );
  only(
    rec('groups', (p) => (p.owner = 'bad/owner')),
    'id.charset',
    'owner',
  );
  only(
    rec('messages', (p) => (p.receiver = 'g.1')),
    'id.charset',
    'receiver',
  );
  only(
    rec('members', (p) => (p.memberId = 'g1_member_u2')),
    'id.mismatch',
    'memberId',
  );
  only(
    rec('users', () => {}, { id: 'u2' }),
    'id.mismatch',
    'uid',
  );
  {
    let deep = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    only(
      rec('users', (p) => (p.metadata = { deep })),
      'value.too-deep',
      undefined,
    );
  }
});

test('timestamps: invalid unless the mapper reported the field, future beyond 5 minutes of skew', () => {
  only(
    rec('users', (p) => (p.createdAt = '2020-01-01')),
    'timestamp.invalid',
    'createdAt',
  );
  only(
    rec('groups', (p) => (p.createdAt = 1_600_000_000.5)),
    'timestamp.invalid',
    'createdAt',
  );
  const mapped = rec('users', (p) => (p.createdAt = 'yesterday'), {
    problems: [{ rule: 'map.timestamp', severity: 'error', field: 'createdAt', message: 'unparsable' }],
  });
  clean(mapped);
  only(
    rec('users', (p) => (p.lastActiveAt = NOW + 301)),
    'timestamp.future',
    'lastActiveAt',
  );
  clean(rec('users', (p) => (p.lastActiveAt = NOW + 300)));
  only(
    rec('messages', (p) => {
      p.sentAt = NOW + 3600;
      delete p.deliveredAt;
      delete p.readAt;
    }),
    'timestamp.future',
    'sentAt',
  );
  only(
    rec('members', (p) => (p.joinedAt = NOW + 3600)),
    'member.joined-at.future',
    'joinedAt',
  );
  only(
    rec('messages', (p) => (p.readAt = p.sentAt - 1)),
    'timestamp.before-sent',
    'readAt',
  );
  only(
    rec('messages', (p) => (p.deliveredAt = p.sentAt - 1)),
    'timestamp.before-sent',
    'deliveredAt',
  );
});

test('timestamps: an optional "never" is left out by the mapper, with a warning; a never sentAt is an error', () => {
  const map = (entity, value) =>
    createMapper({ entity: ENTITIES[entity] })({ kind: 'record', value, file: 'f.ndjson', line: 4, ordinal: 3 });
  const user = map('users', { ...BASE.users, lastActiveAt: '1970-01-01 00:59:59+0100' });
  const found = user.problems.map((p) => [p.rule, p.field, p.severity]);
  assert.deepEqual(found, [['timestamp.never', 'lastActiveAt', SEVERITY.get('timestamp.never')]]);
  assert.equal('lastActiveAt' in user.payload, false);
  clean({ ...user, problems: [] });
  covered.add('timestamp.never');
  const message = map('messages', { ...BASE.messages, sentAt: 0, deliveredAt: undefined, readAt: undefined });
  assert.deepEqual(message.problems, []);
  const refused = only(message, 'timestamp.invalid', 'sentAt');
  assert.match(refused.message, /^sentAt 0 \(1970-01-01T00:00:00Z\) means "never" \(before 1970-01-02\): a real time/);
  // The first real time: 1970-01-02T00:00:00Z.
  const sentAt = (t) =>
    rec('messages', (p) => {
      p.sentAt = t;
      delete p.deliveredAt;
      delete p.readAt;
    });
  clean(sentAt(86_400));
  only(sentAt(86_399), 'timestamp.invalid', 'sentAt');
});

test('users and groups: names, URLs, metadata, tags, type, password', () => {
  only(
    rec('users', (p) => delete p.name),
    'user.name.required',
    'name',
  );
  only(
    rec('users', (p) => (p.name = '  ')),
    'user.name.required',
    'name',
  );
  only(
    rec('users', (p) => (p.name = '名'.repeat(101))),
    'user.name.too-long',
    'name',
  );
  clean(rec('users', (p) => (p.name = '😀'.repeat(100))));
  only(
    rec('groups', (p) => (p.name = 7)),
    'group.name.required',
    'name',
  );
  only(
    rec('groups', (p) => (p.name = 'n'.repeat(101))),
    'group.name.too-long',
    'name',
  );
  for (const bad of [
    'not a url',
    'http:foo',
    'ftp://example.com/a.png',
    'https://example.com/a b.png',
    '/relative.png',
  ]) {
    only(
      rec('users', (p) => (p.avatar = bad)),
      'url.invalid',
      'avatar',
    );
  }
  only(
    rec('groups', (p) => (p.icon = 12)),
    'url.invalid',
    'icon',
  );
  only(
    rec('users', (p) => (p.link = `https://example.com/${'a'.repeat(3000)}`)),
    'url.too-long',
    'link',
  );
  clean(rec('users', (p) => (p.link = `https://example.com/${'a'.repeat(3000 - 20)}`)));
  only(
    rec('users', (p) => (p.metadata = [1, 2])),
    'metadata.not-object',
    'metadata',
  );
  // 2,600 two-byte characters: 2,608 characters of JSON but 5,208 bytes.
  const big = only(
    rec('groups', (p) => (p.metadata = { x: 'é'.repeat(2600) })),
    'metadata.too-large',
    'metadata',
  );
  assert.match(big.message, /5,208 bytes/);
  clean(rec('groups', (p) => (p.metadata = { x: 'a'.repeat(5120 - 8) })));
  only(
    rec('users', (p) => (p.tags = 'a,b')),
    'tags.not-array',
    'tags',
  );
  only(
    rec('users', (p) => (p.tags = Array.from({ length: 26 }, (_, i) => `t${i}`))),
    'tags.too-many',
    'tags',
  );
  only(
    rec('messages', (p) => (p.tags = ['a', 3])),
    'tag.not-string',
    'tags',
  );
  const long = only(
    rec('groups', (p) => (p.tags = ['ok', '😀'.repeat(101)])),
    'tag.too-long',
    'tags',
  );
  assert.equal(long.message, 'tag 2 has 101 characters; at most 100');
  clean(rec('users', (p) => (p.tags = ['漢'.repeat(100), '😀'.repeat(100)])));
  only(
    rec('groups', (p) => (p.type = 'secret')),
    'group.type',
    'type',
  );
  only(
    rec('groups', (p) => delete p.type),
    'group.type',
    'type',
  );
  only(
    rec('groups', (p) => delete p.password),
    'group.password.required',
    'password',
  );
  clean(
    rec('groups', (p) => {
      p.type = 'public';
      delete p.password;
    }),
  );
  only(
    rec('groups', (p) => (p.password = 'p'.repeat(101))),
    'group.password.too-long',
    'password',
  );
});

test('members: scope and isBanned', () => {
  only(
    rec('members', (p) => (p.scope = 'owner')),
    'member.scope',
    'scope',
  );
  only(
    rec('members', (p) => (p.isBanned = 'yes')),
    'member.is-banned.type',
    'isBanned',
  );
  clean(
    rec('members', (p) => {
      delete p.scope;
      delete p.isBanned;
      delete p.joinedAt;
    }),
  );
});

test('messages: required fields, receiverType, category, type', () => {
  for (const field of ['sender', 'receiverType', 'receiver', 'sentAt']) {
    only(
      rec('messages', (p) => delete p[field]),
      'message.required',
      field,
    );
  }
  only(
    rec('messages', (p) => (p.receiverType = 'channel')),
    'message.receiver-type',
    'receiverType',
  );
  only(
    rec('messages', (p) => (p.category = 'action')),
    'message.category',
    'category',
  );
  clean(rec('messages', (p) => delete p.category));
  only(
    rec('messages', (p) => (p.type = 'sticker')),
    'message.type',
    'type',
  );
  only(
    rec('messages', (p) => delete p.type),
    'message.type',
    'type',
  );
  only(
    rec('messages', (p) => {
      p.category = 'custom';
      p.type = '';
    }),
    'message.type',
    'type',
  );
  clean(
    rec('messages', (p) => {
      p.category = 'custom';
      p.type = 'poll';
      p.data = { customData: { q: 'Lunch?' } };
    }),
  );
});

test('messages: data, text, size limits, mentions', () => {
  only(
    rec('messages', (p) => (p.data = 'hi')),
    'data.not-object',
    'data',
  );
  only(
    rec('messages', (p) => (p.data.text = ' \n\t')),
    'message.text.empty',
    'data.text',
  );
  only(
    rec('messages', (p) => delete p.data.text),
    'message.text.empty',
    'data.text',
  );
  only(
    rec('messages', (p) => delete p.data),
    'message.text.empty',
    'data.text',
  );
  only(
    rec('messages', (p) => (p.data.metadata = 'x')),
    'metadata.not-object',
    'data.metadata',
  );
  only(
    rec('messages', (p) => (p.data.text = 'a'.repeat(10_300))),
    'data.too-large',
    'data',
  );
  // Under 10,240 characters but over 10,240 UTF-8 bytes.
  const bytes = only(
    rec('messages', (p) => (p.data.text = 'é'.repeat(5200))),
    'data.too-large',
    'data',
  );
  assert.match(bytes.message, /bytes/);
  // Attachment file sizes are not part of the 10 KB: a 100 MB file is fine.
  clean(rec('messages', (p) => (p.data.attachments[0].size = 104_857_600)));
  const mentions = Array.from({ length: 11 }, (_, i) => `<@uid:u${i}>`).join(' ');
  only(
    rec('messages', (p) => (p.data.text = mentions)),
    'message.mentions.too-many',
    'data.text',
  );
  const tenTwice = Array.from({ length: 10 }, (_, i) => `<@uid:u${i}> <@uid:U${i}>`).join(' ');
  clean(rec('messages', (p) => (p.data.text = tenTwice)));
  only(
    rec('messages', (p) => {
      p.type = 'image';
      delete p.data.attachments;
    }),
    'message.attachments.missing',
    'data.attachments',
  );
});

test('messages: whole-message limit counts JSON characters exactly', () => {
  const padded = (n) =>
    rec('messages', (p) => {
      p.senderUserDetails = { uid: 'u1', name: 'Ann', metadata: { blob: '' } };
      const len = JSON.stringify(p).length;
      p.senderUserDetails.metadata.blob = 'a'.repeat(n - len);
    });
  const at = padded(65_536);
  assert.equal(JSON.stringify(at.payload).length, 65_536);
  clean(at);
  only(padded(65_537), 'message.too-large', undefined);
  // 40,000 emoji are 80,000 UTF-16 units but 40,000 characters.
  clean(
    rec('messages', (p) => (p.senderUserDetails = { uid: 'u1', name: 'Ann', metadata: { blob: '😀'.repeat(40_000) } })),
  );
});

test('messages: attachments', () => {
  const A = 'data.attachments';
  only(
    rec('messages', (p) => (p.data.attachments = { url: 'x' })),
    'attachments.not-array',
    A,
  );
  only(
    rec('messages', (p) => (p.data.attachments = ['x'])),
    'attachment.not-object',
    `${A}[0]`,
  );
  for (const key of ['url', 'name', 'mimeType', 'extension']) {
    only(
      rec('messages', (p) => delete p.data.attachments[0][key]),
      'attachment.required',
      `${A}[0].${key}`,
    );
  }
  only(
    rec('messages', (p) => (p.data.attachments[0].name = 5)),
    'attachment.required',
    `${A}[0].name`,
  );
  only(
    rec('messages', (p) => (p.data.attachments[0].url = 'report.pdf')),
    'attachment.url.invalid',
    `${A}[0].url`,
  );
  for (const bad of ['12kb', -1, 1.5, true]) {
    only(
      rec('messages', (p) => (p.data.attachments[0].size = bad)),
      'attachment.size.invalid',
      `${A}[0].size`,
    );
  }
  only(
    rec('messages', (p) => (p.data.attachments[0].size = '104857601')),
    'attachment.size.too-large',
    `${A}[0].size`,
  );
  clean(rec('messages', (p) => (p.data.attachments[0].size = '104857600')));
  clean(rec('messages', (p) => delete p.data.attachments[0].size));
});

test('interactive forms: element rules, paths into data', () => {
  const form = (edit) => rec('messages', (p) => edit(p.data.interactiveData.formFields, p));
  only(
    form((_, p) => (p.data.interactiveData.formFields = {})),
    'form.fields.not-array',
    F,
  );
  only(
    form((f) => (f[0] = 'label')),
    'form.element.not-object',
    `${F}[0]`,
  );
  only(
    form((f) => (f[0].elementType = 'slider')),
    'form.element-type',
    `${F}[0].elementType`,
  );
  only(
    form((f) => delete f[1].elementId),
    'form.element-id',
    `${F}[1].elementId`,
  );
  only(
    form((f) => (f[1].elementId = 'l1')),
    'form.element-id.duplicate',
    `${F}[1].elementId`,
  );
  only(
    form((f) => delete f[0].text),
    'form.field.required',
    `${F}[0].text`,
  );
  only(
    form((f) => delete f[6].label),
    'form.field.required',
    `${F}[6].label`,
  );
  only(
    form((f) => (f[1].maxLines = 1.5)),
    'form.field.type',
    `${F}[1].maxLines`,
  );
  only(
    form((f) => (f[1].placeholder = { text: 3 })),
    'form.field.type',
    `${F}[1].placeholder.text`,
  );
  only(
    form((f) => (f[1].optional = 'no')),
    'form.field.type',
    `${F}[1].optional`,
  );
  only(
    form((f) => (f[3].action.method = 5)),
    'form.field.type',
    `${F}[3].action.method`,
  );
  only(
    form((f) => (f[3].action.payload = '{}')),
    'form.field.type',
    `${F}[3].action.payload`,
  );
  only(
    form((f) => (f[6].defaultValue = 'a')),
    'form.field.type',
    `${F}[6].defaultValue`,
  );
  only(
    form((f) => (f[7].options[0] = { value: 1, label: 'S' })),
    'form.option',
    `${F}[7].options[0]`,
  );
  only(
    form((f) => (f[8].defaultValue = 'maybe')),
    'form.default-value',
    `${F}[8].defaultValue`,
  );
  only(
    form((f) => (f[6].defaultValue = ['a', 'z'])),
    'form.default-value',
    `${F}[6].defaultValue`,
  );
  // A mistyped default is a type problem only, not also a missing option.
  only(
    form((f) => (f[7].defaultValue = ['zz'])),
    'form.field.type',
    `${F}[7].defaultValue`,
  );
  only(
    form((f) => (f[2].action.actionType = 'openModal')),
    'form.action.type',
    `${F}[2].action.actionType`,
  );
  // No actionType means urlNavigation, which needs a url.
  only(
    form((f) => (f[2].action = {})),
    'form.action.url',
    `${F}[2].action.url`,
  );
  only(
    form((f) => (f[4].action.url = 'not a url')),
    'form.action.url',
    `${F}[4].action.url`,
  );
  clean(form((f) => (f[2].action = { url: 'https://example.com' })));
  only(
    form((f) => (f[10].from = '2023-02-29')),
    'form.date',
    `${F}[10].from`,
  );
  only(
    form((f) => (f[10].to = '2024/03/31')),
    'form.date',
    `${F}[10].to`,
  );
  only(
    form((f) => (f[10].from = '2024-04-01')),
    'form.date.range',
    `${F}[10].from`,
  );
  clean(
    form((f) => {
      f[10].from = '2000-02-29';
      f[10].to = '2000-02-29';
    }),
  );
  only(
    form((f) => (f[10].from = '1900-02-29')),
    'form.date',
    `${F}[10].from`,
  );
  only(
    form((f) => (f[10].to = '2024-04-31')),
    'form.date',
    `${F}[10].to`,
  );
  only(
    form((f) => (f[10].timezoneCode = 'Mars/Olympus')),
    'form.timezone',
    `${F}[10].timezoneCode`,
  );
  for (const zone of ['UTC', 'Europe/Berlin', 'US/Eastern']) clean(form((f) => (f[10].timezoneCode = zone)));
  // formFields anywhere inside data, not only at interactiveData.
  const deep = rec(
    'messages',
    (p) => (p.data.custom = { steps: [{ formFields: [{ elementType: 'label', elementId: 'x' }] }] }),
  );
  only(deep, 'form.field.required', 'data.custom.steps[0].formFields[0].text');
});

function located(entity, edit, file, line) {
  return rec(entity, edit, { file, line });
}

test('ExportIndex: duplicates name the first place; case-only differences collide', () => {
  const index = new ExportIndex({ configured: ALL, nowSec: NOW });
  assert.deepEqual(index.check(located('users', (p) => (p.uid = 'u7'), 'users.csv', 12)), []);
  // Another name: an exact copy would be skipped as a duplicate, not reported.
  const [dup, ...rest] = index.check(
    located(
      'users',
      (p) => {
        p.uid = 'u7';
        p.name = 'Bo';
      },
      'more-users.csv',
      40,
    ),
  );
  assert.deepEqual(rest, []);
  assert.equal(dup.rule, 'id.duplicate');
  assert.equal(dup.field, 'uid');
  assert.equal(dup.message, 'duplicate uid u7; first seen at users.csv:12');
  covered.add(dup.rule);
  assert.deepEqual(index.check(located('users', (p) => (p.uid = 'Bob'), 'users.csv', 5)), []);
  const [clash] = index.check(located('users', (p) => (p.uid = 'bob'), 'users.csv', 9));
  assert.equal(clash.rule, 'id.case-collision');
  assert.equal(clash.field, 'uid');
  assert.match(clash.message, /users\.csv:5/);
  assert.match(clash.message, /\bbob\b/);
  covered.add(clash.rule);
  // Ids of different entities never collide; members are keyed by memberId.
  assert.deepEqual(
    index.check(
      located(
        'groups',
        (p) => {
          p.guid = 'u7';
          p.owner = 'u7';
        },
        'groups.csv',
        2,
      ),
    ),
    [],
  );
  assert.deepEqual(
    index.check(
      located(
        'members',
        (p) => {
          p.guid = 'u7';
          p.uid = 'bob';
          p.memberId = 'u7_member_bob';
        },
        'm.csv',
        3,
      ),
    ),
    [],
  );
  const [memberDup] = index.check(
    located(
      'members',
      (p) => {
        p.guid = 'U7';
        p.uid = 'bob';
        delete p.memberId;
      },
      'm.csv',
      4,
    ),
  );
  assert.equal(memberDup.rule, 'id.case-collision');
  assert.equal(memberDup.field, 'memberId');
  // Skipped records are never sent: they neither count as ids nor clash.
  assert.deepEqual(
    index.check({ ...located('users', (p) => (p.uid = 'u7'), 'users.csv', 99), skip: 'soft-deleted' }),
    [],
  );
  assert.deepEqual(
    index.check({ ...located('users', (p) => (p.uid = 'u8'), 'users.csv', 100), skip: 'before-since' }),
    [],
  );
  assert.deepEqual(index.check(located('users', (p) => (p.uid = 'u8'), 'users.csv', 101)), []);
});

test('ExportIndex: references resolve case-insensitively against earlier records', () => {
  const index = new ExportIndex({ configured: ALL, nowSec: NOW });
  index.check(rec('users', (p) => (p.uid = 'Ann')));
  const one = (record, code, field) => {
    const problems = index.check(record);
    assert.deepEqual(
      problems.map((p) => [p.rule, p.field]),
      [[code, field]],
      JSON.stringify(problems),
    );
    assert.equal(problems[0].severity, SEVERITY.get(code));
    covered.add(code);
    return problems[0];
  };
  // A member's or message's parent missing from the export holds it (one entry per id), with no problem of
  // its own: validate's one line for the parent is at its first child, under that child's rule.
  const held = (record, code, field, id) => {
    assert.deepEqual(index.check(record), []);
    const parent = record.blockedBy;
    assert.equal(parent?.reason, 'missing', JSON.stringify(parent));
    assert.equal(parent.id, id);
    if (parent.firstChild.id === record.id) {
      const line = heldBackProblem(parent);
      assert.deepEqual([line.rule, line.field, line.entity, line.id], [code, field, record.entity, record.id]);
      assert.equal(line.severity, SEVERITY.get(code));
      covered.add(code);
    }
    return parent;
  };
  assert.deepEqual(
    index.check(
      rec('groups', (p) => {
        p.guid = 'g1';
        p.owner = 'ann';
      }),
    ),
    [],
  );
  const owner = one(
    rec('groups', (p) => {
      p.guid = 'g2';
      p.owner = 'ghost';
    }),
    'ref.group.owner',
    'owner',
  );
  assert.equal(owner.message, 'no user ghost in the users export');
  assert.deepEqual(
    index.check(
      rec('groups', (p) => {
        p.guid = 'g3';
        p.owner = 'ghost';
        p.groupOwnerDetails = { uid: 'Ghost', name: 'G' };
      }),
    ),
    [],
  );
  held(
    rec('members', (p) => {
      p.guid = 'g9';
      p.uid = 'ann';
    }),
    'ref.member.group',
    'guid',
    'g9',
  );
  const ghost = held(
    rec('members', (p) => {
      p.guid = 'G1';
      p.uid = 'ghost';
    }),
    'ref.member.user',
    'uid',
    'ghost',
  );
  assert.deepEqual(
    index.check(
      rec('members', (p) => {
        p.guid = 'G1';
        p.uid = 'ANN';
      }),
    ),
    [],
  );
  // The member named ghost first: the message is held by the same entry, which stays at the member.
  const ghostAgain = held(
    rec('messages', (p) => {
      p.muid = 'm1';
      p.sender = 'GHOST';
      p.receiver = 'g1';
    }),
    'ref.message.sender',
    'sender',
    'ghost',
  );
  assert.equal(ghostAgain, ghost);
  assert.equal(ghost.firstChild.entity, 'members');
  held(
    rec('messages', (p) => {
      p.muid = 'm1b';
      p.sender = 'phantom';
      p.receiver = 'g1';
    }),
    'ref.message.sender',
    'sender',
    'phantom',
  );
  held(
    rec('messages', (p) => {
      p.muid = 'm2';
      p.sender = 'ann';
      p.receiverType = 'user';
      p.receiver = 'g1';
    }),
    'ref.message.receiver',
    'receiver',
    'g1',
  );
  held(
    rec('messages', (p) => {
      p.muid = 'm3';
      p.sender = 'ann';
      p.receiverType = 'group';
      p.receiver = 'ann';
    }),
    'ref.message.receiver',
    'receiver',
    'ann',
  );
  assert.deepEqual(
    index.blocked.list().map((p) => `${p.entity}:${p.id}`),
    ['groups:g9', 'users:ghost', 'users:phantom', 'users:g1', 'groups:ann'],
  );
  assert.deepEqual(
    index.check(
      rec('messages', (p) => {
        p.muid = 'm4';
        p.sender = 'new';
        p.senderUserDetails = { uid: 'new', name: 'N' };
        p.receiver = 'G1';
      }),
    ),
    [],
  );
  // A malformed reference is pass 1's to report, not looked up again.
  assert.deepEqual(
    index.check(
      rec('messages', (p) => {
        p.muid = 'm5';
        p.sender = 'bad id';
      }),
    ),
    [],
  );
  assert.deepEqual(index.uncheckedReferences(), []);
});

test('ExportIndex: references to an unconfigured entity are skipped and reported once per kind', () => {
  const index = new ExportIndex({ configured: new Set(['members', 'messages']), nowSec: NOW });
  const before = index.uncheckedReferences();
  assert.equal(before.length, 5);
  assert.ok(
    before.some((s) => /Message senders/.test(s) && /no users source/.test(s)),
    before.join('\n'),
  );
  assert.ok(before.some((s) => /groups/.test(s) && /no groups source/.test(s)));
  assert.ok(!before.some((s) => /Group owners/.test(s)));
  assert.deepEqual(index.check(rec('members', (p) => (p.uid = 'nobody'))), []);
  assert.deepEqual(index.check(rec('messages', (p) => (p.sender = 'nobody'))), []);
  assert.deepEqual(index.uncheckedReferences(), before);
  const usersOnly = new ExportIndex({ configured: new Set(['users', 'messages']), nowSec: NOW });
  assert.deepEqual(usersOnly.uncheckedReferences(), [
    'Receivers of messages to groups were not checked: no groups source is configured.',
  ]);
});

test('ExportIndex: joinedAt against the group createdAt', () => {
  const index = new ExportIndex({ configured: ALL, nowSec: NOW });
  index.check(rec('users'));
  index.check(rec('users', (p) => (p.uid = 'u2')));
  index.check(rec('users', (p) => (p.uid = 'u3')));
  index.check(rec('groups', (p) => (p.createdAt = 1_600_000_100)));
  assert.deepEqual(index.check(rec('members', (p) => (p.joinedAt = 1_600_000_101))), []);
  // The service wants joinedAt greater than createdAt: a join at the second of creation is moved a second on.
  const owner = rec('members', (p) => {
    p.uid = 'u2';
    p.memberId = 'g1_member_u2';
    p.joinedAt = 1_600_000_100;
  });
  assert.deepEqual(index.check(owner), []);
  assert.equal(owner.payload.joinedAt, 1_600_000_101);
  const late = index.check(
    rec('members', (p) => {
      p.uid = 'u3';
      p.memberId = 'g1_member_u3';
      p.joinedAt = 1_600_000_099;
    }),
  );
  assert.equal(late.length, 1);
  const [early] = late;
  assert.equal(early.rule, 'member.joined-at.before-group');
  assert.equal(early.field, 'joinedAt');
  covered.add(early.rule);
  // Without a groups export, the member's own groupDetails.createdAt is the reference.
  const bare = new ExportIndex({ configured: new Set(['members']), nowSec: NOW });
  const [fromDetails] = bare.check(
    rec('members', (p) => {
      p.joinedAt = 1_500_000_000;
      p.groupDetails = { guid: 'g1', name: 'G', type: 'public', createdAt: 1_600_000_000 };
    }),
  );
  assert.equal(fromDetails?.rule, 'member.joined-at.before-group');
});

test('ExportIndex.finish: one group.large warning per group above 300 members, at the group record', () => {
  const index = new ExportIndex({ configured: ALL, nowSec: NOW });
  index.check(rec('groups', (p) => (p.guid = 'big'), { file: 'groups.json', line: 7 }));
  index.check(rec('groups', (p) => (p.guid = 'edge'), { file: 'groups.json', line: 8 }));
  const member = (guid, i) =>
    rec('members', (p) => {
      p.guid = guid;
      p.uid = `u${i}`;
      delete p.memberId;
    });
  for (let i = 0; i < 301; i++) index.check(member('big', i));
  for (let i = 0; i < 300; i++) index.check(member('edge', i));
  // A duplicate member record is not a second member.
  index.check(member('edge', 0));
  const warnings = index.finish();
  assert.equal(warnings.length, 1);
  const [w] = warnings;
  assert.deepEqual(
    [w.rule, w.severity, w.entity, w.id, w.file, w.line],
    ['group.large', 'warning', 'groups', 'big', 'groups.json', 7],
  );
  assert.match(w.message, /301 members/);
  covered.add(w.rule);
});

test('IdIndex: 200,000 ids without false duplicates, in about 24 bytes an id', () => {
  const index = new IdIndex();
  const n = 200_000;
  for (let i = 0; i < n; i++) assert.equal(index.add(`user-${i}`, i % 3, i + 1), ID_NEW);
  assert.equal(index.size, n);
  for (let i = 0; i < n; i++) assert.equal(index.has(`other-${i}`), false);
  assert.equal(index.add('user-123', 9, 9), ID_DUPLICATE);
  assert.equal(index.lineAt(index.lastSlot), 124);
  assert.equal(index.fileAt(index.lastSlot), 123 % 3);
  assert.equal(index.add('USER-77', 9, 9), ID_CASE_COLLISION);
  assert.equal(index.lineAt(index.lastSlot), 78);
  assert.equal(index.size, n);
  // 18 bytes a slot, at most 3/4 full before doubling: 24 bytes an id just before, 48 just after.
  assert.equal(index.byteLength, 18 * index.capacity);
  assert.ok(n <= index.capacity * 0.75 && n > index.capacity * 0.375, `capacity ${index.capacity}`);
  const perId = index.byteLength / n;
  assert.ok(perId >= 24 && perId <= 48, `bytes per id: ${perId}`);
  // File indexes past 65,535 widen the column instead of wrapping.
  assert.equal(index.add('late', 70_000, 1), ID_NEW);
  assert.equal(index.fileAt(index.lastSlot), 70_000);
  assert.equal(index.add('user-5', 0, 0), ID_DUPLICATE);
  assert.equal(index.lineAt(index.lastSlot), 6);
});

test('ExportIndex: an id two export ids share is id.collision naming both, even for identical records', () => {
  const collisions = new Map([['alice_11ptgg', ['Alice', 'alice_11ptgg']]]);
  const index = new ExportIndex({ configured: ALL, nowSec: NOW, idCollisions: { users: collisions } });
  const user = (line) => located('users', (p) => (p.uid = 'alice_11ptgg'), 'active_users.json', line);
  assert.deepEqual(index.check(user(3)), []);
  const second = user(7);
  const [collision, ...rest] = index.check(second);
  assert.deepEqual(rest, []);
  assert.equal(second.skip, undefined, 'not skipped as a copy of the first: it is another user');
  assert.equal(collision.rule, 'id.collision');
  assert.equal(collision.field, 'uid');
  assert.match(collision.message, /export ids "Alice", "alice_11ptgg"/);
  assert.match(collision.message, /first record with it is at active_users\.json:3/);
  covered.add(collision.rule);
  // Without the preset's collisions the same pair is an exact copy, skipped.
  const plain = new ExportIndex({ configured: ALL, nowSec: NOW });
  plain.check(user(3));
  const copy = user(7);
  assert.deepEqual(plain.check(copy), []);
  assert.equal(copy.skip, 'duplicate');
});

test('ExportIndex: a blocked user or group marks its members and messages, not its groups or missing refs', () => {
  const index = new ExportIndex({ configured: ALL, nowSec: NOW, blockedBefore: new Set(['groups:g9']) });
  const ann = rec('users', (p) => (p.uid = 'Ann'));
  index.check(ann);
  index.blocked.block(ann, 'user.name.too-long');
  const twin = rec('users', (p) => (p.uid = 'u2'));
  index.check(twin);
  // A repeated id is rejected, but its first record may be in: it holds nothing back; nor does a mapped user.
  index.blocked.block(twin, 'id.duplicate', [{ rule: 'id.duplicate', severity: 'error', message: '' }]);
  index.blocked.block(
    rec('users', (p) => (p.uid = 'u3')),
    'skipped:mapped',
  );
  assert.deepEqual(
    index.blocked.list().map((p) => `${p.id} ${p.reason}`),
    ['Ann user.name.too-long'],
  );
  const group = rec('groups', (p) => (p.owner = 'ann'));
  assert.deepEqual(index.check(group), []);
  assert.equal(group.blockedBy, undefined, "a group's owner holds nothing back");
  const member = rec('members', (p) => (p.uid = 'ANN'));
  assert.deepEqual(index.check(member), []);
  assert.equal(member.blockedBy?.id, 'Ann', 'references match whatever their case');
  const message = rec('messages', (p) => (p.sender = 'u2'));
  index.check(message);
  assert.equal(message.blockedBy, undefined);
  // A group an earlier run blocked and that is in now: its children are marked to be sent again.
  const later = rec('messages', (p) => {
    p.receiver = 'g9';
    p.sender = 'u2';
  });
  index.check(later);
  assert.equal(later.heldBefore, true);
  const [line] = index.blocked.list();
  line.held.members = 1;
  const held = heldBackProblem(line);
  assert.equal(held.rule, 'parent.holds-back');
  assert.match(held.message, /^holds back 1 member: the user is rejected \(user\.name\.too-long\)/);
  covered.add(held.rule);
});

test('every rule in RULES is triggered by some test above', () => {
  const missing = RULES.map((r) => r.code).filter((c) => !covered.has(c));
  assert.deepEqual(missing, []);
});
