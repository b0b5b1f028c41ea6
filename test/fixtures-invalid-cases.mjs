// What `validate --json` must report for each scenario of fixtures/invalid/: every problem, exactly.
// test/validate.e2e.test.mjs runs each scenario from its own folder (so `file` is the name as the
// config lists it) and asserts that each entry below is reported with this rule, file, line, entity,
// id, field and severity, and that nothing else is reported.
//
// `id` is the record key the report shows (absent when the record has none, or for input.* problems
// that stand for no parsed record); `field` is absent when the problem concerns the whole record.
//
// Known bugs: an entry with `knownBug` records src behaviour that is wrong today.
//   currently: 'missing'  the problem should be reported but is not: the test asserts it is absent;
//                         when src is fixed, delete `knownBug` and `currently` (the entry then must hold).
//   currently: 'extra'    the problem is reported but should not be: the test asserts it is present;
//                         when src is fixed, delete the entry.

/** One folder of fixtures/invalid/ each, with what the whole run must come to. */
export const SCENARIOS = {
  // Every per-record and reference rule, in a well-formed export of all four entities.
  records: { exit: 3, recordsRead: 120, skipped: { messages: 2 } },
  // The readers' input.* problems: one way of breaking a file each, good records around it.
  malformed: { exit: 3, recordsRead: 47 },
  // group.large above 300 members (not at exactly 300): warnings only, so exit 0.
  'large-group': { exit: 0, recordsRead: 904 },
  // Members without a groups source: one note instead of a check per member; uids still checked.
  unchecked: { exit: 3, recordsRead: 6, notChecked: [/Members' groups \(guid\) were not checked/] },
  // A small, mostly valid export: what import sends, rejects and skips (see validate.e2e.test.mjs).
  mixed: { exit: 3, recordsRead: 18, skipped: { messages: 2 } },
  // Odd values of real exports: "never" times, exact copies (skipped) and repeated ids with other content.
  odd: { exit: 3, recordsRead: 75, skipped: { users: 1, members: 1, messages: 2 } },
  // A rejected user and group: one line each for what they hold back, none for their members and messages.
  blocked: { exit: 3, recordsRead: 13 },
  // A Sendbird export whose two user ids the vendor's id rule makes one (Alice -> alice_11ptgg).
  collision: { exit: 3, recordsRead: 2 },
};

const E = 'error';
const W = 'warning';
/**
 * @typedef {{ scenario: string, rule: string, file: string, line: number, entity: string, severity: string,
 *   id?: string, field?: string, knownBug?: string, currently?: 'missing' | 'extra' }} Case
 */
const at = (scenario, rule, file, line, entity, id, field, severity = E, extra = {}) => {
  /** @type {Case} */
  const c = { scenario, rule, file, line, entity, severity, ...extra };
  if (id !== undefined) c.id = id;
  if (field !== undefined) c.field = field;
  return c;
};
const rec = (...a) => at('records', ...a);
const bad = (rule, file, line, entity, severity = E) =>
  at('malformed', rule, file, line, entity, undefined, undefined, severity);

export const CASES = [
  // ---- records/users.csv (CSV; rows 2-4 and 25-26 are valid: 100 emoji / 100 CJK characters are within limits)
  rec('id.required', 'users.csv', 5, 'users', undefined, 'uid'), // empty uid cell
  rec('id.too-long', 'users.csv', 6, 'users', 'a'.repeat(101), 'uid'),
  rec('id.charset', 'users.csv', 7, 'users', 'bad uid', 'uid'),
  rec('id.duplicate', 'users.csv', 8, 'users', 'u1', 'uid'), // first seen at users.csv:2
  rec('id.case-collision', 'users.csv', 9, 'users', 'U2', 'uid'), // u2 at users.csv:3
  rec('user.name.required', 'users.csv', 10, 'users', 'u10', 'name'),
  rec('user.name.too-long', 'users.csv', 11, 'users', 'u11', 'name'), // 101 emoji
  rec('url.invalid', 'users.csv', 12, 'users', 'u12', 'avatar'),
  rec('url.too-long', 'users.csv', 13, 'users', 'u13', 'link'), // 3,001 characters
  rec('metadata.not-object', 'users.csv', 14, 'users', 'u14', 'metadata'), // [1,2]
  rec('metadata.too-large', 'users.csv', 15, 'users', 'u15', 'metadata'),
  rec('tags.not-array', 'users.csv', 16, 'users', 'u16', 'tags'), // {"a":1}
  rec('tags.too-many', 'users.csv', 17, 'users', 'u17', 'tags'), // 26
  rec('tag.not-string', 'users.csv', 18, 'users', 'u18', 'tags'),
  rec('tag.too-long', 'users.csv', 19, 'users', 'u19', 'tags'), // 101 CJK characters
  rec('timestamp.invalid', 'users.csv', 20, 'users', 'u20', 'createdAt'), // "yesterday": the mapper's
  rec('timestamp.never', 'users.csv', 21, 'users', 'u21', 'createdAt', W), // -5: "never", left out
  rec('timestamp.future', 'users.csv', 22, 'users', 'u22', 'createdAt'),
  rec('field.json', 'users.csv', 23, 'users', 'u23', 'metadata'), // "{bad json"
  rec('field.unknown', 'users.csv', 24, 'users', 'u24', 'nickname', W),
  rec('id.charset', 'users.csv', 27, 'users', 'u 27', 'uid'), // after a quoted two-line cell (25-26)

  // ---- records/users_keyed.json (id-keyed JSON: line 2 takes its uid from the key; member line 16 refers to it)
  rec('id.mismatch', 'users_keyed.json', 3, 'users', 'u32', 'uid', E, {}),

  // ---- records/groups.json (JSON array; records at line 3 and 24 span several lines)
  rec('id.type', 'groups.json', 12, 'groups', 'true', 'guid'), // "guid": true
  rec('id.type', 'groups.json', 13, 'groups', 'g4', 'owner'), // owner is an object
  rec('ref.group.owner', 'groups.json', 14, 'groups', 'g5', 'owner'), // u404; line 15's u777 has groupOwnerDetails
  rec('group.name.required', 'groups.json', 16, 'groups', 'g7', 'name'),
  rec('group.name.too-long', 'groups.json', 17, 'groups', 'g8', 'name'),
  rec('group.type', 'groups.json', 18, 'groups', 'g9', 'type'), // "secret"
  rec('group.type', 'groups.json', 19, 'groups', 'g10', 'type'), // missing
  rec('group.password.required', 'groups.json', 20, 'groups', 'g11', 'password'),
  rec('group.password.too-long', 'groups.json', 21, 'groups', 'g12', 'password'),
  rec('url.invalid', 'groups.json', 22, 'groups', 'g13', 'icon'), // ftp://
  rec('timestamp.future', 'groups.json', 23, 'groups', 'g14', 'createdAt'),
  rec('id.duplicate', 'groups.json', 24, 'groups', 'g2', 'guid'), // first seen at groups.json:3
  rec('tags.not-array', 'groups.json', 29, 'groups', 'g15', 'tags'),

  // ---- records/members.ndjson
  rec('id.required', 'members.ndjson', 3, 'members', '_member_u3', 'guid'),
  rec('id.required', 'members.ndjson', 4, 'members', 'g1_member_', 'uid'),
  rec('member.scope', 'members.ndjson', 5, 'members', 'g1_member_u3', 'scope'),
  rec('member.is-banned.type', 'members.ndjson', 6, 'members', 'g2_member_u1', 'isBanned'), // "yes"
  rec('member.joined-at.before-group', 'members.ndjson', 7, 'members', 'g2_member_u2', 'joinedAt'),
  rec('member.joined-at.future', 'members.ndjson', 8, 'members', 'g2_member_u3', 'joinedAt'),
  // A missing parent: one line at its first child, holding back the rest (g404: messages 26; u404: 24 and 25).
  rec('ref.member.group', 'members.ndjson', 9, 'members', 'g404_member_u1', 'guid'),
  rec('ref.member.user', 'members.ndjson', 10, 'members', 'g1_member_u404', 'uid'),
  rec('id.duplicate', 'members.ndjson', 11, 'members', 'g1_member_u1', 'memberId'),
  rec('id.case-collision', 'members.ndjson', 12, 'members', 'G1_member_U2', 'memberId'),
  rec('id.mismatch', 'members.ndjson', 13, 'members', 'g6_member_u1', 'memberId', E, {}),

  // ---- records/messages.ndjson (lines 33 and 34 are deleted messages: skipped, so not checked)
  rec('id.required', 'messages.ndjson', 3, 'messages', undefined, 'muid'),
  rec('message.required', 'messages.ndjson', 4, 'messages', 'm4', 'sender'),
  rec('message.required', 'messages.ndjson', 5, 'messages', 'm5', 'receiverType'),
  rec('message.required', 'messages.ndjson', 6, 'messages', 'm6', 'receiver'),
  rec('message.required', 'messages.ndjson', 7, 'messages', 'm7', 'sentAt'),
  rec('message.receiver-type', 'messages.ndjson', 8, 'messages', 'm8', 'receiverType'),
  rec('message.category', 'messages.ndjson', 9, 'messages', 'm9', 'category'), // "action"
  rec('message.type', 'messages.ndjson', 10, 'messages', 'm10', 'type'), // "sticker"
  rec('message.text.empty', 'messages.ndjson', 11, 'messages', 'm11', 'data.text'),
  rec('message.attachments.missing', 'messages.ndjson', 12, 'messages', 'm12', 'data.attachments', W),
  rec('message.too-large', 'messages.ndjson', 13, 'messages', 'm13', undefined), // big senderUserDetails
  rec('message.mentions.too-many', 'messages.ndjson', 14, 'messages', 'm14', 'data.text'),
  rec('timestamp.before-sent', 'messages.ndjson', 15, 'messages', 'm15', 'readAt', W),
  rec('data.not-object', 'messages.ndjson', 16, 'messages', 'm16', 'data'),
  rec('data.too-large', 'messages.ndjson', 17, 'messages', 'm17', 'data'),
  rec('attachments.not-array', 'messages.ndjson', 18, 'messages', 'm18', 'data.attachments'),
  rec('attachment.not-object', 'messages.ndjson', 19, 'messages', 'm19', 'data.attachments[0]'),
  rec('attachment.required', 'messages.ndjson', 20, 'messages', 'm20', 'data.attachments[0].mimeType'),
  rec('attachment.url.invalid', 'messages.ndjson', 21, 'messages', 'm21', 'data.attachments[0].url'),
  rec('attachment.size.invalid', 'messages.ndjson', 22, 'messages', 'm22', 'data.attachments[0].size'),
  rec('attachment.size.too-large', 'messages.ndjson', 23, 'messages', 'm23', 'data.attachments[0].size'),
  // 24-26 name u404 and g404, held by their lines at members.ndjson:9-10; line 27 has receiverUserDetails
  rec('metadata.not-object', 'messages.ndjson', 28, 'messages', 'm28', 'data.metadata'),
  rec('timestamp.future', 'messages.ndjson', 29, 'messages', 'm29', 'sentAt'),
  rec('timestamp.invalid', 'messages.ndjson', 30, 'messages', 'm30', 'sentAt'),
  rec('field.conflict', 'messages.ndjson', 31, 'messages', 'm31', 'data.text'), // "data": 5 and "data.text"
  rec('data.not-object', 'messages.ndjson', 31, 'messages', 'm31', 'data'),
  rec('id.duplicate', 'messages.ndjson', 32, 'messages', 'm1', 'muid'),
  rec('message.type', 'messages.ndjson', 35, 'messages', 'm35', 'type'), // custom with type ""
  rec('timestamp.invalid', 'messages.ndjson', 36, 'messages', 'm36', 'deliveredAt'),
  rec('value.too-deep', 'messages.ndjson', 37, 'messages', 'm37', undefined),
  rec('ref.message.receiver', 'messages.ndjson', 38, 'messages', 'm38', 'receiver'), // user u405, first named here

  // ---- records/messages_archive.csv (CSV, dotted columns; row 2 spans lines 2-3)
  // m2 at messages.ndjson:2, another file
  rec('id.case-collision', 'messages_archive.csv', 2, 'messages', 'M2', 'muid'),
  rec('timestamp.invalid', 'messages_archive.csv', 4, 'messages', 'm40', 'sentAt'), // 2023-02-30
  rec('field.json', 'messages_archive.csv', 5, 'messages', 'm41', 'data.attachments'),
  rec('field.json', 'messages_archive.csv', 7, 'messages', 'm43', 'data.metadata'),

  // ---- records/messages_forms.ndjson (custom messages with forms; line 1 holds every element type, valid)
  rec('form.fields.not-array', 'messages_forms.ndjson', 2, 'messages', 'f2', 'data.interactiveData.formFields'),
  rec('form.element.not-object', 'messages_forms.ndjson', 3, 'messages', 'f3', 'data.interactiveData.formFields[0]'),
  rec(
    'form.element-type',
    'messages_forms.ndjson',
    4,
    'messages',
    'f4',
    'data.interactiveData.formFields[0].elementType',
  ),
  rec('form.element-id', 'messages_forms.ndjson', 5, 'messages', 'f5', 'data.interactiveData.formFields[0].elementId'),
  rec(
    'form.element-id.duplicate',
    'messages_forms.ndjson',
    6,
    'messages',
    'f6',
    'data.interactiveData.formFields[1].elementId',
  ),
  rec('form.field.required', 'messages_forms.ndjson', 7, 'messages', 'f7', 'data.interactiveData.formFields[0].text'),
  rec('form.field.required', 'messages_forms.ndjson', 8, 'messages', 'f8', 'data.interactiveData.formFields[0].label'),
  rec('form.field.type', 'messages_forms.ndjson', 9, 'messages', 'f9', 'data.interactiveData.formFields[0].maxLines'),
  rec('form.option', 'messages_forms.ndjson', 10, 'messages', 'f10', 'data.interactiveData.formFields[0].options[0]'),
  rec(
    'form.default-value',
    'messages_forms.ndjson',
    11,
    'messages',
    'f11',
    'data.interactiveData.formFields[0].defaultValue',
  ),
  rec(
    'form.action.type',
    'messages_forms.ndjson',
    12,
    'messages',
    'f12',
    'data.interactiveData.formFields[0].action.actionType',
  ),
  rec(
    'form.action.url',
    'messages_forms.ndjson',
    13,
    'messages',
    'f13',
    'data.interactiveData.formFields[0].action.url',
  ), // no actionType: urlNavigation
  // 2023-02-29
  rec('form.date', 'messages_forms.ndjson', 14, 'messages', 'f14', 'data.interactiveData.formFields[0].from'),
  rec('form.date.range', 'messages_forms.ndjson', 15, 'messages', 'f15', 'data.interactiveData.formFields[0].from'),
  rec(
    'form.timezone',
    'messages_forms.ndjson',
    16,
    'messages',
    'f16',
    'data.interactiveData.formFields[0].timezoneCode',
  ),
  rec(
    'form.default-value',
    'messages_forms.ndjson',
    17,
    'messages',
    'f17',
    'data.customData.forms[0].formFields[0].defaultValue',
  ), // a form elsewhere in data
  rec(
    'form.field.type',
    'messages_forms.ndjson',
    18,
    'messages',
    'f18',
    'data.interactiveData.formFields[0].action.method',
  ),

  // ---- malformed/ (input.* problems; the records around them are read and checked)
  bad('input.csv-columns', 'users-columns.csv', 5, 'users'), // after a quoted two-line row (3-4)
  bad('input.csv-columns', 'users-columns.csv', 6, 'users'),
  bad('input.csv-header', 'users-header.csv', 1, 'users'), // a column without a name
  bad('input.csv-header', 'users-header.csv', 1, 'users'), // a repeated name
  bad('input.csv-syntax', 'users-quote.csv', 3, 'users'), // unterminated quote: that row only; u10 on line 4 is read
  bad('input.utf8', 'users-utf8.csv', 3, 'users'),
  bad('input.encoding', 'users-latin1.csv', 1, 'users'), // the whole file: u14 and u15 are not read
  bad('input.empty-file', 'users-empty.csv', 1, 'users', W), // 0 bytes
  bad('input.empty-file', 'users-bom.csv', 1, 'users', W), // a BOM only
  bad('input.json-syntax', 'groups-syntax.json', 3, 'groups'), // that record only; g3 on line 4 is read
  bad('input.json-shape', 'groups-scalar.json', 3, 'groups'),
  bad('input.json-shape', 'groups-wrapper.json', 5, 'groups'), // "extras" beside "groups"
  bad('input.not-object', 'groups-not-object.json', 3, 'groups'), // 5
  bad('input.not-object', 'groups-not-object.json', 4, 'groups'), // "six"
  bad('input.not-object', 'groups-not-object.json', 5, 'groups'), // null
  bad('input.json-syntax', 'groups-truncated.json', 3, 'groups'), // the file ends inside a record
  bad('input.utf8', 'groups-utf8.json', 4, 'groups'), // inside a record that starts on line 3
  bad('input.gzip', 'members-cut.ndjson.gz', 15, 'members'), // 14 records read before the cut
  bad('input.gzip', 'members-not-gzip.ndjson.gz', 1, 'members'),
  bad('input.json-syntax', 'members-lines.ndjson', 2, 'members'),
  bad('input.not-object', 'members-lines.ndjson', 3, 'members'), // [1, 2]
  bad('input.not-object', 'members-lines.ndjson', 4, 'members'), // "text"
  bad('input.utf8', 'members-lines.ndjson', 6, 'members'), // after a blank line 5
  bad('input.empty-file', 'members-blank.ndjson', 1, 'members', W), // whitespace only
  bad('input.empty-file', 'messages-empty.json', 1, 'messages', W),
  bad('input.json-shape', 'messages-shape.json', 3, 'messages'), // a wrapper without "messages"

  // ---- large-group/
  at('large-group', 'group.large', 'groups.csv', 2, 'groups', 'big', undefined, W), // 301 members; "edge" has 300

  // ---- unchecked/
  at('unchecked', 'ref.member.user', 'members.ndjson', 3, 'members', 'nowhere3_member_u404', 'uid'),

  // ---- mixed/
  at('mixed', 'field.unknown', 'users.ndjson', 2, 'users', 'bob', 'nickname', W),
  at('mixed', 'user.name.required', 'users.ndjson', 3, 'users', 'cid', 'name'),
  at('mixed', 'group.password.required', 'groups.csv', 3, 'groups', 'vault', 'password'),
  at('mixed', 'member.scope', 'members.ndjson', 2, 'members', 'team_member_bob', 'scope'),
  at('mixed', 'message.text.empty', 'messages.ndjson', 3, 'messages', 'x3', 'data.text'),
  at('mixed', 'input.json-syntax', 'messages.ndjson', 4, 'messages', undefined, undefined),
  at('mixed', 'ref.message.sender', 'messages.ndjson', 5, 'messages', 'x5', 'sender'),

  // ---- blocked/ (bob's member line 2 and messages 2-4, vault's member line 3 and message 5: not listed)
  at('blocked', 'user.name.too-long', 'users.ndjson', 2, 'users', 'bob', 'name'),
  at('blocked', 'parent.holds-back', 'users.ndjson', 2, 'users', 'bob', undefined), // 1 member and 3 messages
  at('blocked', 'group.password.required', 'groups.ndjson', 2, 'groups', 'vault', 'password'),
  at('blocked', 'parent.holds-back', 'groups.ndjson', 2, 'groups', 'vault', undefined), // 1 member and 1 message
  // ---- collision/ (the first record, Alice at line 3, is named in the message)
  at('collision', 'id.collision', 'export/active_users.json', 4, 'users', 'alice_11ptgg', 'uid'),

  // ---- odd/ (exact copies: users.ndjson 3, members.ndjson 3, messages.ndjson 4 and 66 are skipped, not reported)
  at('odd', 'timestamp.never', 'users.ndjson', 2, 'users', 'bob', 'createdAt', W), // 0
  at('odd', 'timestamp.never', 'users.ndjson', 2, 'users', 'bob', 'lastActiveAt', W), // Sendbird's epoch in +01:00
  at('odd', 'timestamp.never', 'users.ndjson', 2, 'users', 'bob', 'deactivatedAt', W), // a zero date
  at('odd', 'id.duplicate', 'users.ndjson', 4, 'users', 'ann', 'uid'), // other name; first seen at users.ndjson:1
  at('odd', 'timestamp.never', 'groups.ndjson', 1, 'groups', 'team', 'createdAt', W),
  at('odd', 'timestamp.never', 'members.ndjson', 1, 'members', 'team_member_ann', 'joinedAt', W), // -1
  at('odd', 'timestamp.never', 'messages.ndjson', 2, 'messages', 'm2', 'deliveredAt', W),
  at('odd', 'timestamp.never', 'messages.ndjson', 2, 'messages', 'm2', 'readAt', W),
  at('odd', 'timestamp.invalid', 'messages.ndjson', 3, 'messages', 'm3', 'sentAt'), // "never", yet required: the rule's
  at('odd', 'id.duplicate', 'messages.ndjson', 5, 'messages', 'm1', 'muid'), // first seen at messages.ndjson:1
  at('odd', 'id.duplicate', 'messages.ndjson', 67, 'messages', 'f7', 'muid'), // first seen at messages.ndjson:7
];

/**
 * Codes the mapper and the readers emit besides RULES. The e2e test also scans the built mapper and
 * readers for code literals, so a new one without a fixture fails there too.
 */
export const MAPPER_CODES = ['field.json', 'field.unknown', 'field.conflict', 'timestamp.invalid', 'timestamp.never'];
export const READER_CODES = [
  'input.csv-columns',
  'input.encoding',
  'input.csv-syntax',
  'input.csv-header',
  'input.json-syntax',
  'input.not-object',
  'input.json-shape',
  'input.utf8',
  'input.empty-file',
  'input.gzip',
];
