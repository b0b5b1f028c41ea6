import { RULES } from '../../rules/rules.js';
import { rejectCanClear } from '../../rules/reject-classes.js';
import { BEYOND_RETENTION, MEDIA_NOT_CARRIED } from '../../entities/types.js';

/** The service's own codes (docs/api-contract.md); the rules' codes come from the rules table. */
const SERVICE_CODES: Record<string, string> = {
  ERR_IMPORT_INVALID_USER_FORMAT: 'The service refused the user record: a field has a form it does not take.',
  ERR_IMPORT_INVALID_GROUP_FORMAT: 'The service refused the group record: a field has a form it does not take.',
  ERR_IMPORT_INVALID_MEMBER_FORMAT: 'The service refused the member record: a field has a form it does not take.',
  ERR_IMPORT_INVALID_MESSAGE_FORMAT: 'The service refused the message record: a field has a form it does not take.',
  ERR_IMPORT_INVALID_JOINEDAT: "The member's joinedAt is before the group was created, or in the future.",
  ERR_EMPTY_MESSAGE_TEXT: 'A text message without text.',
  ERR_EXCEPTION: 'The service failed this record alone with a server error, while other records went in.',
  [MEDIA_NOT_CARRIED]: 'A file of the message could not be carried into the bucket: the message waits for it.',
  [BEYOND_RETENTION]:
    "The service refused the message as older than the app's retention window (retentionDays was set longer).",
};

/** What a reject code means and what to do about it, in a sentence each. */
export function meaningOf(code: string): { meaning: string; action: string } {
  const rule = RULES.find((r) => r.code === code);
  const meaning =
    rule?.description ??
    SERVICE_CODES[code] ??
    (code.startsWith('HTTP_5')
      ? 'The service failed this record alone with a server error, while other records went in.'
      : code.startsWith('file.') || code.startsWith('input.')
        ? 'A line or file of the export could not be read.'
        : 'A code the service or the tool gave; the rejects file holds its message.');
  let action: string;
  if (code === MEDIA_NOT_CARRIED)
    action =
      'Fix what the reason names (media.hosts, a token, the file) and run import again; or edit the attachment ' +
      'out of its line in the rejects file and run replay.';
  else if (code === BEYOND_RETENTION)
    action =
      "Set retentionDays to the app's window: the next import counts it as skipped (beyond-retention); or have " +
      "the vendor extend the app's storage and run replay.";
  else if (code.startsWith('ref.'))
    action =
      'Add the missing user or group to the export (or its details object); the record is tried again every run.';
  else if (rejectCanClear(code)) action = 'Run import again later: the record is tried again on every run.';
  else
    action = 'Fix the record at the file:line shown (or drop it), then run import again: a changed line is sent again.';
  return { meaning, action };
}
