import { ENTITIES } from '../entities/index.js';
import type { EntityName, MappedRecord, Problem } from '../entities/types.js';
import { problem } from './rules.js';

/**
 * id.duplicate (the very same id) or id.case-collision (equal but for letter case) of `id` against
 * the id first seen at `where` ("file:line"): what exact mode reports, and what import can report
 * when it finds a suspect's first record in a batch of its own.
 */
export function duplicateIdProblem(entity: EntityName, id: string, sameCase: boolean, where: string): Problem {
  const field = ENTITIES[entity].idField;
  if (sameCase) return problem('id.duplicate', field, `duplicate ${field} ${id}; first seen at ${where}`);
  return problem(
    'id.case-collision',
    field,
    `${field} ${id} differs only in case from the ${field} first seen at ${where}; ` +
      `the service lower-cases both to ${id.toLowerCase()}`,
  );
}

/**
 * id.collision: `id` is the service id of several export ids (`sources`, a preset's id rule made
 * them one); the record at hand is a second record with it, the first was at `where`.
 */
export function idCollisionProblem(entity: EntityName, id: string, sources: readonly string[], where: string): Problem {
  const field = ENTITIES[entity].idField;
  const named = sources.map((s) => JSON.stringify(s)).join(', ');
  return problem(
    'id.collision',
    field,
    `${field} ${id} is the service id of the export ids ${named} (the id rule makes them one); ` +
      `the first record with it is at ${where}: rename one in the export, give one an id of your own with ` +
      `${entity === 'users' ? 'userMap' : 'groupMap'}, or set idRule to collision-free`,
  );
}

/**
 * Import, bloom mode: what to report for a record marked `duplicateSuspect` (and not
 * `sameContentSuspect`) when the service answers already-exists for it. The first record with that
 * muid was sent before it (this run or an earlier one), so the answer means "a duplicate in the
 * export", not "sent already by a crashed run".
 */
export function suspectDuplicateProblem(record: MappedRecord): Problem {
  const field = ENTITIES[record.entity].idField;
  // Import keeps no list of where each muid was (memory stays flat): validate's second reading names it.
  const message =
    `duplicate ${field} ${record.id}: an earlier record of the export has it (maybe in other letter case) ` +
    'with other content, and the service already holds that one (`validate` names where)';
  return problem('id.duplicate', field, message);
}
