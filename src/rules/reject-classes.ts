/**
 * Which rejects can clear without the record changing: a reference to a user or group the export did
 * not have yet (it may come in a later night's files), or the service failing a record alone with a
 * server error. Those are tried again on every run; a reject for the record's own content stays until
 * its source line changes.
 */
export function rejectCanClear(code: string): boolean {
  return code.startsWith('ref.') || code.startsWith('HTTP_5') || code === 'ERR_EXCEPTION';
}
