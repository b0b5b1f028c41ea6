import type { EntityName, Problem, Severity } from '../entities/types.js';

/**
 * One rule code that validation can emit. Codes are stable: scripts filter on them, and docs/validate-rules.md
 * lists them (generated from this table by src/rules/rules-doc.ts).
 */
export interface RuleInfo {
  code: string;
  severity: Severity;
  entity: EntityName | 'any';
  description: string;
}

// `as const` keeps the codes as a union type, so a misspelt code in a rule file fails to compile
// instead of emitting a rule nobody documented.
const RULE_TABLE = [
  // ids and references to ids (any entity)
  {
    code: 'id.required',
    severity: 'error',
    entity: 'any',
    description: "The id (uid, guid, muid; a member's guid and uid) is missing or empty.",
  },
  {
    code: 'id.type',
    severity: 'error',
    entity: 'any',
    description: 'An id or an id reference (owner, sender, receiver) is not a string.',
  },
  {
    code: 'id.too-long',
    severity: 'error',
    entity: 'any',
    description: 'An id or an id reference has more than 100 characters.',
  },
  {
    code: 'id.charset',
    severity: 'error',
    entity: 'any',
    description: 'An id or an id reference holds characters other than ASCII letters, digits, `_` and `-`.',
  },
  {
    code: 'value.too-deep',
    severity: 'error',
    entity: 'any',
    description: 'A value is nested so deeply (thousands of levels) that it cannot be serialised to JSON.',
  },
  {
    code: 'id.mismatch',
    severity: 'error',
    entity: 'any',
    description:
      "The id inside the payload differs from the record's key; a member's memberId must be `<guid>_member_<uid>`.",
  },
  {
    code: 'id.duplicate',
    severity: 'error',
    entity: 'any',
    description:
      "The same id appears twice in one entity's export with different content; the message names " +
      'where it was first seen. An exact copy of the first record is skipped (`duplicate`), not reported.',
  },
  {
    code: 'id.case-collision',
    severity: 'error',
    entity: 'any',
    description: 'Two ids of one entity differ only in letter case; the service lower-cases ids, so they collide.',
  },
  // shared field rules
  {
    code: 'timestamp.invalid',
    severity: 'error',
    entity: 'any',
    description:
      'A timestamp is not a timestamp, or not an integer of UNIX seconds (reported only when the mapper ' +
      'has not already reported that field); also a message\'s sentAt that means "never" (before 1970-01-02).',
  },
  {
    code: 'timestamp.never',
    severity: 'warning',
    entity: 'any',
    description:
      'An optional timestamp (createdAt, lastActiveAt, deactivatedAt, joinedAt, deliveredAt, readAt) ' +
      'means "never": 0, negative, or before 1970-01-02 (the epoch in any time zone, a zero date such as ' +
      '0001-01-01). The field is left out of what is sent.',
  },
  {
    code: 'timestamp.future',
    severity: 'error',
    entity: 'any',
    description:
      'A timestamp (createdAt, lastActiveAt, deactivatedAt, sentAt, deliveredAt, readAt, deletedAt) lies in the ' +
      'future; 5 minutes of clock skew are allowed.',
  },
  {
    code: 'url.invalid',
    severity: 'error',
    entity: 'any',
    description: 'avatar, link or icon is not an absolute http(s) URL without whitespace.',
  },
  {
    code: 'url.too-long',
    severity: 'error',
    entity: 'any',
    description: 'avatar, link or icon has more than 3,000 characters.',
  },
  {
    code: 'metadata.not-object',
    severity: 'error',
    entity: 'any',
    description: 'metadata (of a user or group) or data.metadata (of a message) is not a JSON object.',
  },
  {
    code: 'metadata.too-large',
    severity: 'error',
    entity: 'any',
    description: 'The metadata of a user or group serialises to more than 5,120 bytes of UTF-8 JSON.',
  },
  { code: 'tags.not-array', severity: 'error', entity: 'any', description: 'tags is not an array.' },
  { code: 'tags.too-many', severity: 'error', entity: 'any', description: 'There are more than 25 tags.' },
  { code: 'tag.not-string', severity: 'error', entity: 'any', description: 'A tag is not a string.' },
  {
    code: 'tag.too-long',
    severity: 'error',
    entity: 'any',
    description: 'A tag has more than 100 characters (code points: an emoji or a CJK character counts once).',
  },
  // users and groups
  {
    code: 'user.name.required',
    severity: 'error',
    entity: 'users',
    description: "A user's name is missing, blank or not a string.",
  },
  {
    code: 'user.name.too-long',
    severity: 'error',
    entity: 'users',
    description: "A user's name has more than 100 characters.",
  },
  {
    code: 'group.name.required',
    severity: 'error',
    entity: 'groups',
    description: "A group's name is missing, blank or not a string.",
  },
  {
    code: 'group.name.too-long',
    severity: 'error',
    entity: 'groups',
    description: "A group's name has more than 100 characters.",
  },
  {
    code: 'group.type',
    severity: 'error',
    entity: 'groups',
    description: "A group's type is missing or not one of public, private, password.",
  },
  {
    code: 'group.password.required',
    severity: 'error',
    entity: 'groups',
    description: 'A group of type password has no password (or a blank one, or one that is not a string).',
  },
  {
    code: 'group.password.too-long',
    severity: 'error',
    entity: 'groups',
    description: "A group's password has more than 100 characters.",
  },
  {
    code: 'group.large',
    severity: 'warning',
    entity: 'groups',
    description:
      'A group has more than 300 members: the service will not update its conversations or unread counts, and ' +
      'receipts stop above 300 online users.',
  },
  {
    code: 'ref.group.owner',
    severity: 'error',
    entity: 'groups',
    description:
      "A group's owner is not a user of the export (checked only when users are configured; satisfied by a " +
      'matching groupOwnerDetails).',
  },
  // members
  {
    code: 'member.scope',
    severity: 'error',
    entity: 'members',
    description: 'scope is not one of admin, moderator, participant.',
  },
  { code: 'member.is-banned.type', severity: 'error', entity: 'members', description: 'isBanned is not a boolean.' },
  {
    code: 'member.joined-at.before-group',
    severity: 'error',
    entity: 'members',
    description:
      "joinedAt is earlier than the group's createdAt (ERR_IMPORT_INVALID_JOINEDAT); equal times are allowed.",
  },
  {
    code: 'member.joined-at.future',
    severity: 'error',
    entity: 'members',
    description: 'joinedAt lies in the future (ERR_IMPORT_INVALID_JOINEDAT); 5 minutes of clock skew are allowed.',
  },
  {
    code: 'ref.member.group',
    severity: 'error',
    entity: 'members',
    description:
      "A member's guid is not a group of the export (checked only when groups are configured; satisfied by a " +
      'matching groupDetails).',
  },
  {
    code: 'ref.member.user',
    severity: 'error',
    entity: 'members',
    description:
      "A member's uid is not a user of the export (checked only when users are configured; satisfied by a matching " +
      'userDetails).',
  },
  // messages
  {
    code: 'message.required',
    severity: 'error',
    entity: 'messages',
    description: 'sender, receiverType, receiver or sentAt is missing (the field says which).',
  },
  {
    code: 'message.receiver-type',
    severity: 'error',
    entity: 'messages',
    description: 'receiverType is not user or group.',
  },
  {
    code: 'message.category',
    severity: 'error',
    entity: 'messages',
    description:
      'category is not message or custom (missing means message; action and call messages cannot be imported).',
  },
  {
    code: 'message.type',
    severity: 'error',
    entity: 'messages',
    description:
      'type is missing, or not text, image, file, audio or video when category is message, or empty when category ' +
      'is custom.',
  },
  {
    code: 'message.text.empty',
    severity: 'error',
    entity: 'messages',
    description: 'A text message has no data.text, or it is not a string, or only whitespace (ERR_EMPTY_MESSAGE_TEXT).',
  },
  {
    code: 'message.attachments.missing',
    severity: 'warning',
    entity: 'messages',
    description: 'An image, file, audio or video message has no data.attachments: it would import as an empty bubble.',
  },
  {
    code: 'message.too-large',
    severity: 'error',
    entity: 'messages',
    description: 'The whole message serialises to more than 65,536 characters of JSON.',
  },
  {
    code: 'message.mentions.too-many',
    severity: 'error',
    entity: 'messages',
    description: 'data.text mentions more than 10 distinct users as `<@uid:...>`.',
  },
  {
    code: 'timestamp.before-sent',
    severity: 'warning',
    entity: 'messages',
    description: 'deliveredAt or readAt is earlier than sentAt.',
  },
  { code: 'data.not-object', severity: 'error', entity: 'messages', description: 'data is not a JSON object.' },
  {
    code: 'data.too-large',
    severity: 'error',
    entity: 'messages',
    description: 'data serialises to more than 10,240 bytes of UTF-8 JSON (attachment files are counted apart).',
  },
  {
    code: 'attachments.not-array',
    severity: 'error',
    entity: 'messages',
    description: 'data.attachments is not an array.',
  },
  {
    code: 'attachment.not-object',
    severity: 'error',
    entity: 'messages',
    description: 'An element of data.attachments is not an object.',
  },
  {
    code: 'attachment.required',
    severity: 'error',
    entity: 'messages',
    description: 'An attachment lacks url, name, mimeType or extension as a non-empty string (the field says which).',
  },
  {
    code: 'attachment.url.invalid',
    severity: 'error',
    entity: 'messages',
    description: "An attachment's url is not an absolute http(s) URL without whitespace.",
  },
  {
    code: 'attachment.size.invalid',
    severity: 'error',
    entity: 'messages',
    description: "An attachment's size is neither a non-negative integer nor a string of digits.",
  },
  {
    code: 'attachment.size.too-large',
    severity: 'error',
    entity: 'messages',
    description: "An attachment's size is over 104,857,600 bytes (100 MB).",
  },
  {
    code: 'ref.message.sender',
    severity: 'error',
    entity: 'messages',
    description:
      'sender is not a user of the export (checked only when users are configured; satisfied by a matching ' +
      'senderUserDetails).',
  },
  {
    code: 'ref.message.receiver',
    severity: 'error',
    entity: 'messages',
    description:
      'receiver is not a user (receiverType user) or group (receiverType group) of the export (checked only when ' +
      'that entity is configured; satisfied by matching receiverUserDetails/receiverGroupDetails).',
  },
  // interactive form elements, anywhere a `formFields` key sits inside data
  {
    code: 'form.fields.not-array',
    severity: 'error',
    entity: 'messages',
    description: 'A formFields value inside data is not an array.',
  },
  {
    code: 'form.element.not-object',
    severity: 'error',
    entity: 'messages',
    description: 'A form element is not an object.',
  },
  {
    code: 'form.element-type',
    severity: 'error',
    entity: 'messages',
    description:
      'elementType is missing or not one of label, textInput, button, checkbox, dropdown, radio, singleSelect, ' +
      'dateTime.',
  },
  {
    code: 'form.element-id',
    severity: 'error',
    entity: 'messages',
    description: 'elementId is missing, empty or not a string.',
  },
  {
    code: 'form.element-id.duplicate',
    severity: 'error',
    entity: 'messages',
    description: 'Two elements of one form share an elementId.',
  },
  {
    code: 'form.field.required',
    severity: 'error',
    entity: 'messages',
    description: "A required element field is missing or empty: a label's text, a checkbox's label.",
  },
  {
    code: 'form.field.type',
    severity: 'error',
    entity: 'messages',
    description:
      'An element field (or an apiAction field, or placeholder.text) has the wrong JSON type for its element table ' +
      'entry.',
  },
  {
    code: 'form.option',
    severity: 'error',
    entity: 'messages',
    description: 'An option is not an object with string value and string label.',
  },
  {
    code: 'form.default-value',
    severity: 'error',
    entity: 'messages',
    description: "defaultValue (or one of a checkbox's defaultValue strings) is not among the element's option values.",
  },
  {
    code: 'form.action.type',
    severity: 'error',
    entity: 'messages',
    description:
      "A button action's actionType is not apiAction, urlNavigation, deepLinkAction or customAction (missing means " +
      'urlNavigation).',
  },
  {
    code: 'form.action.url',
    severity: 'error',
    entity: 'messages',
    description: 'A urlNavigation or deepLinkAction action (or one without actionType) lacks a valid absolute URL.',
  },
  {
    code: 'form.date',
    severity: 'error',
    entity: 'messages',
    description: "A dateTime element's from or to is not a real calendar date shaped YYYY-MM-DD.",
  },
  {
    code: 'form.date.range',
    severity: 'error',
    entity: 'messages',
    description: "A dateTime element's from is after its to.",
  },
  {
    code: 'form.timezone',
    severity: 'error',
    entity: 'messages',
    description: "A dateTime element's timezoneCode is not an IANA time zone this runtime knows.",
  },
] as const satisfies readonly RuleInfo[];

export type RuleCode = (typeof RULE_TABLE)[number]['code'];

/** Every rule code validation can emit, in a stable order. */
export const RULES: readonly RuleInfo[] = RULE_TABLE;

const SEVERITY = new Map<string, Severity>(RULE_TABLE.map((r) => [r.code, r.severity]));

/** Builds a problem whose severity comes from the rule table, so one code never has two severities. */
export function problem(rule: RuleCode, field: string | undefined, message: string): Problem {
  const p: Problem = { rule, severity: SEVERITY.get(rule) ?? 'error', message };
  if (field !== undefined) p.field = field;
  return p;
}
