/**
 * Validation: the dry run that finds every record the service would refuse or mangle.
 * Pass 1 (`validateRecord`) looks at one record alone; pass 2 (`ExportIndex`) sees ids across records.
 * Every code either pass can emit is in `RULES`.
 */
import { NO_PROBLEMS, type MappedRecord, type Problem } from '../entities/types.js';
import { validateGroup, validateMember, validateUser } from './entity-rules.js';
import { validateMessage } from './message-rules.js';
import { problem } from './rules.js';

export { RULES } from './rules.js';
export type { RuleCode, RuleInfo } from './rules.js';
export {
  CONTENT_BLOOM_BYTES,
  duplicateIdProblem,
  ExportIndex,
  LARGE_GROUP_MEMBERS,
  SAME_RECORD,
  suspectDuplicateProblem,
} from './export-index.js';
export { contentHash } from './content-hash.js';
export { BlockedParents, blockedParentLine, heldWords, parentKey } from './blocked-parents.js';
export type { ExportIndexOptions } from './export-index.js';
export { IdBloomFilter } from './id-bloom.js';
export { IdIndex, ID_CASE_COLLISION, ID_DUPLICATE, ID_NEW } from './id-index.js';
export type { IdAddResult } from './id-index.js';

/**
 * Per-record rules (pass 1). Pure; `nowSec` is the current time in UNIX seconds. A record without
 * problems gets a shared, frozen empty array, so what the caller keeps is never an array each.
 */
export function validateRecord(record: MappedRecord, nowSec: number): Problem[] {
  const out: Problem[] = [];
  try {
    validateByEntity(record, nowSec, out);
  } catch (err) {
    out.length = 0;
    // JSON.stringify and the size walks recurse: thousands of nesting levels overflow the stack. Such a
    // record cannot be sent either, so it is one problem, not a crash that loses the rest of the run.
    if (!(err instanceof RangeError)) throw err;
    return [problem('value.too-deep', undefined, 'a value is nested too deeply to serialise as JSON')];
  }
  return out.length === 0 ? NO_PROBLEMS : out;
}

function validateByEntity(record: MappedRecord, nowSec: number, out: Problem[]): void {
  switch (record.entity) {
    case 'users':
      validateUser(record, nowSec, out);
      break;
    case 'groups':
      validateGroup(record, nowSec, out);
      break;
    case 'members':
      validateMember(record, nowSec, out);
      break;
    case 'messages':
      validateMessage(record, nowSec, out);
      break;
    default:
      break;
  }
}
