import { MEDIA_NOT_CARRIED } from '../entities/types.js';

/**
 * Which rejects can clear without the record changing: a reference to a user or group the export did
 * not have yet (it may come in a later night's files), the service failing a record alone with a
 * server error, or an attachment that could not be carried (its host may answer next time). Those
 * are tried again on every run; a reject for the record's own content stays until its line changes,
 * `beyond-retention` included: the service refuses an old message the same way every time.
 */
export function rejectCanClear(code: string): boolean {
  return code.startsWith('ref.') || code.startsWith('HTTP_5') || code === 'ERR_EXCEPTION' || code === MEDIA_NOT_CARRIED;
}

/**
 * A reject worth simply trying again (replay's summary): the service failed the record alone, not
 * for its content. Everything else (validation rules, format errors, missing references) needs the
 * data fixed first.
 */
export function rejectIsTransient(code: string): boolean {
  return (
    code.startsWith('HTTP_5') || code === 'HTTP_429' || code === 'ERR_EXCEPTION' || code === 'ERR_TOO_MANY_REQUESTS'
  );
}
