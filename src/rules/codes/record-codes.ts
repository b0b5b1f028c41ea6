import type { RuleInfo } from '../rule-info.js';

/** The rule codes of ids, references, shared fields, users, groups and members (rules/rules.ts joins the tables). */
export const RECORD_RULES = [
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
  {
    code: 'id.collision',
    severity: 'error',
    entity: 'any',
    description:
      "Two ids of a preset's export become one service id under its id rule (`idRule: vendor` turns " +
      '`Alice` into `alice_11ptgg`, which another user may have as it is): the service would keep one ' +
      'of them. The message names both export ids and where the first record is. See [Ids](ids.md).',
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
      "joinedAt is before the group's createdAt (ERR_IMPORT_INVALID_JOINEDAT). The service wants it greater: " +
      'a join at the very second of creation is sent a second after it.',
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
      'matching groupDetails). The group holds back what names it: one line, at the first, with the count.',
  },
  {
    code: 'ref.member.user',
    severity: 'error',
    entity: 'members',
    description:
      "A member's uid is not a user of the export (checked only when users are configured; satisfied by a matching " +
      'userDetails). The user holds back what names it: one line, at the first, with the count.',
  },
  {
    code: 'parent.holds-back',
    severity: 'error',
    entity: 'any',
    description:
      'A user or group that is rejected or skipped holds back its members and messages: they are not sent until it ' +
      'gets in. One line for the user or group, with the count it holds back; its children are not listed. One ' +
      'missing from the export is reported under the ref.* rule of the first record naming it.',
  },
] as const satisfies readonly RuleInfo[];
