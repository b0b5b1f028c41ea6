import type { MappedRecord, Problem } from '../entities/types.js';
import {
  checkIdMatches,
  checkIdValue,
  checkMetadata,
  checkName,
  checkRequiredId,
  checkTags,
  checkTimestamps,
  checkUrlField,
  LIMITS,
} from './common-rules.js';
import { problem } from './rules.js';
import { isAbsent, isBlank, mapperFlagged, overLimit, typeName } from './values.js';

const GROUP_TYPES: ReadonlySet<unknown> = new Set(['public', 'private', 'password']);
const SCOPES: ReadonlySet<unknown> = new Set(['admin', 'moderator', 'participant']);

export function validateUser(record: MappedRecord, nowSec: number, out: Problem[]): void {
  const p = record.payload;
  if (checkRequiredId(out, p.uid, 'uid')) checkIdMatches(out, record, p.uid, 'uid');
  checkName(out, p.name, 'user.name.required', 'user.name.too-long');
  checkUrlField(out, record, 'avatar');
  checkUrlField(out, record, 'link');
  checkMetadata(out, record);
  checkTags(out, record);
  checkTimestamps(out, record, nowSec);
}

export function validateGroup(record: MappedRecord, nowSec: number, out: Problem[]): void {
  const p = record.payload;
  if (checkRequiredId(out, p.guid, 'guid')) checkIdMatches(out, record, p.guid, 'guid');
  checkName(out, p.name, 'group.name.required', 'group.name.too-long');
  const type = p.type;
  if (isAbsent(type)) {
    out.push(problem('group.type', 'type', 'type is required: public, private or password'));
  } else if (!GROUP_TYPES.has(type)) {
    out.push(problem('group.type', 'type', `type must be public, private or password; got ${JSON.stringify(type)}`));
  }
  checkPassword(out, type, p.password);
  if (!isAbsent(p.owner)) checkIdValue(out, 'owner', p.owner);
  checkUrlField(out, record, 'icon');
  checkMetadata(out, record);
  checkTags(out, record);
  checkTimestamps(out, record, nowSec);
}

function checkPassword(out: Problem[], type: unknown, password: unknown): void {
  if (typeof password === 'string') {
    const n = overLimit(password, LIMITS.password);
    if (n > 0)
      out.push(
        problem('group.password.too-long', 'password', `password has ${n} characters; at most ${LIMITS.password}`),
      );
  }
  if (type !== 'password') return;
  if (isAbsent(password) || (typeof password === 'string' && isBlank(password))) {
    out.push(problem('group.password.required', 'password', 'password is required for a password group'));
  } else if (typeof password !== 'string') {
    out.push(problem('group.password.required', 'password', `password must be a string; got ${typeName(password)}`));
  }
}

export function validateMember(record: MappedRecord, nowSec: number, out: Problem[]): void {
  const p = record.payload;
  const guidOk = checkRequiredId(out, p.guid, 'guid');
  const uidOk = checkRequiredId(out, p.uid, 'uid');
  const memberId = p.memberId;
  if (guidOk && uidOk && !isAbsent(memberId)) {
    const expected = `${p.guid as string}_member_${p.uid as string}`;
    if (memberId !== expected) {
      out.push(
        problem(
          'id.mismatch',
          'memberId',
          `memberId ${JSON.stringify(memberId)} must be ${expected} (<guid>_member_<uid>)`,
        ),
      );
    }
  }
  if (!isAbsent(p.scope) && !SCOPES.has(p.scope)) {
    out.push(
      problem('member.scope', 'scope', `scope must be admin, moderator or participant; got ${JSON.stringify(p.scope)}`),
    );
  }
  if (!isAbsent(p.isBanned) && typeof p.isBanned !== 'boolean' && !mapperFlagged(record, 'isBanned')) {
    out.push(
      problem('member.is-banned.type', 'isBanned', `isBanned must be true or false; got ${JSON.stringify(p.isBanned)}`),
    );
  }
  // joinedAt against the group's createdAt needs the groups export: ExportIndex checks that.
  checkTimestamps(out, record, nowSec);
}
