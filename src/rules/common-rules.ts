import { ENTITIES } from '../entities/index.js';
import { isNeverTime } from '../entities/timestamps.js';
import type { MappedRecord, Problem } from '../entities/types.js';
import { problem, type RuleCode } from './rules.js';
import {
  bytesOverLimit,
  describeBadIdChar,
  formatCount,
  hasIdChars,
  isAbsent,
  isBlank,
  isHttpUrl,
  isObject,
  isoTime,
  mapperFlagged,
  MAX_ID_LENGTH,
  overLimit,
  typeName,
} from './values.js';

/** The service's own limits (vendor import constraints, docs/api-contract.md "Limits"). */
export const LIMITS = {
  name: 100,
  url: 3000,
  metadataBytes: 5120,
  tags: 25,
  tagLength: 100,
  password: 100,
} as const;

/** Clock skew between the export's machine and ours; a message "sent" a minute from now is not an error. */
export const FUTURE_SKEW_SEC = 300;

/**
 * Checks an id or an id reference that is present. Returns false when it is unusable, so callers can
 * skip rules that would only repeat the same fault.
 */
export function checkIdValue(out: Problem[], field: string, v: unknown): boolean {
  if (typeof v !== 'string') {
    out.push(problem('id.type', field, `${field} must be a string; got ${typeName(v)}`));
    return false;
  }
  if (v === '') {
    out.push(problem('id.required', field, `${field} is empty`));
    return false;
  }
  let ok = true;
  const n = overLimit(v, MAX_ID_LENGTH);
  if (n > 0) {
    out.push(problem('id.too-long', field, `${field} has ${n} characters; at most ${MAX_ID_LENGTH}`));
    ok = false;
  }
  if (!hasIdChars(v)) {
    out.push(
      problem('id.charset', field, `${field} holds ${describeBadIdChar(v)}; only letters, digits, _ and - are allowed`),
    );
    ok = false;
  }
  return ok;
}

/**
 * A required id field: missing is `id.required`, a present value gets the shape rules. Callers pass
 * the value read by name (`p.muid`): a load keyed by a variable name is slower on the hot path.
 */
export function checkRequiredId(out: Problem[], v: unknown, field: string): boolean {
  if (isAbsent(v)) {
    out.push(problem('id.required', field, `${field} is required`));
    return false;
  }
  return checkIdValue(out, field, v);
}

/**
 * The body's key must equal the id inside (docs/api-contract.md); a custom map can set them apart. `v`: the id
 * field's value.
 */
export function checkIdMatches(out: Problem[], record: MappedRecord, v: unknown, field: string): void {
  if (typeof v === 'string' && v !== '' && record.id !== '' && v !== record.id) {
    out.push(problem('id.mismatch', field, `${field} ${v} differs from the record key ${record.id}`));
  }
}

export function checkName(out: Problem[], v: unknown, required: RuleCode, tooLong: RuleCode): void {
  if (isAbsent(v) || (typeof v === 'string' && isBlank(v))) {
    out.push(problem(required, 'name', 'name is required'));
  } else if (typeof v !== 'string') {
    out.push(problem(required, 'name', `name must be a string; got ${typeName(v)}`));
  } else {
    const n = overLimit(v, LIMITS.name);
    if (n > 0) out.push(problem(tooLong, 'name', `name has ${n} characters; at most ${LIMITS.name}`));
  }
}

/** avatar, link and icon: optional, but when present an absolute http(s) URL of at most 3,000 characters. */
export function checkUrlField(out: Problem[], record: MappedRecord, field: string): void {
  const v = record.payload[field];
  if (isAbsent(v) || mapperFlagged(record, field)) return;
  if (typeof v !== 'string') {
    out.push(problem('url.invalid', field, `${field} must be a URL string; got ${typeName(v)}`));
    return;
  }
  const n = overLimit(v, LIMITS.url);
  if (n > 0)
    out.push(
      problem('url.too-long', field, `${field} has ${formatCount(n)} characters; at most ${formatCount(LIMITS.url)}`),
    );
  if (!isHttpUrl(v)) out.push(problem('url.invalid', field, `${field} is not an absolute http(s) URL`));
}

/** User and group metadata: an object of at most 5 KB of UTF-8 JSON. */
export function checkMetadata(out: Problem[], record: MappedRecord): void {
  const v = record.payload.metadata;
  if (isAbsent(v) || mapperFlagged(record, 'metadata')) return;
  if (!isObject(v)) {
    out.push(problem('metadata.not-object', 'metadata', `metadata must be a JSON object; got ${typeName(v)}`));
    return;
  }
  const bytes = bytesOverLimit(JSON.stringify(v), LIMITS.metadataBytes);
  if (bytes > 0) {
    out.push(
      problem(
        'metadata.too-large',
        'metadata',
        `metadata is ${formatCount(bytes)} bytes of JSON; at most ${formatCount(LIMITS.metadataBytes)}`,
      ),
    );
  }
}

export function checkTags(out: Problem[], record: MappedRecord): void {
  const v = record.payload.tags;
  if (isAbsent(v) || mapperFlagged(record, 'tags')) return;
  if (!Array.isArray(v)) {
    out.push(problem('tags.not-array', 'tags', `tags must be an array of strings; got ${typeName(v)}`));
    return;
  }
  if (v.length > LIMITS.tags) out.push(problem('tags.too-many', 'tags', `${v.length} tags; at most ${LIMITS.tags}`));
  for (let i = 0; i < v.length; i++) {
    const tag: unknown = v[i];
    if (typeof tag !== 'string') {
      out.push(problem('tag.not-string', 'tags', `tag ${i + 1} is ${typeName(tag)}; tags are strings`));
      continue;
    }
    const n = overLimit(tag, LIMITS.tagLength);
    if (n > 0)
      out.push(problem('tag.too-long', 'tags', `tag ${i + 1} has ${n} characters; at most ${LIMITS.tagLength}`));
  }
}

/**
 * Every timestamp field of the entity: an integer of UNIX seconds, not "never", not in the future. A
 * value the mapper could not parse was reported by the mapper already.
 */
export function checkTimestamps(out: Problem[], record: MappedRecord, nowSec: number): void {
  const fields = ENTITIES[record.entity].timestampFields;
  const p = record.payload;
  const latest = nowSec + FUTURE_SKEW_SEC;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    const v = p[field];
    if (isAbsent(v)) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      if (!mapperFlagged(record, field)) {
        out.push(
          problem(
            'timestamp.invalid',
            field,
            `${field} must be an integer of UNIX seconds; got ${JSON.stringify(v) ?? typeName(v)}`,
          ),
        );
      }
    } else if (isNeverTime(v)) {
      // The mapper leaves out an optional field's "never": what is left is a required time (sentAt).
      const message = `${field} ${v} (${isoTime(v)}) means "never" (before 1970-01-02): a real time is needed`;
      out.push(problem('timestamp.invalid', field, message));
    } else if (v > latest) {
      const code = field === 'joinedAt' ? 'member.joined-at.future' : 'timestamp.future';
      out.push(problem(code, field, `${field} ${v} (${isoTime(v)}) is in the future`));
    }
  }
}
