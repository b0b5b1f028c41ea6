import type { JsonObject } from '../../entities/types.js';
import { type FileKind, type Recognized, type Recognizer, str } from '../detect/recognize.js';
import { recordsAt } from '../detect/peek.js';
import { isObject } from '../shared/items.js';
import { LIST_FILE_KINDS, SID_PREFIX } from './layout.js';

const TWILIO_SID = new RegExp(`^(${Object.keys(SID_PREFIX).join('|')})[0-9a-f]{32}$`, 'i');

export const recognizeTwilio: Recognizer = {
  lines(first) {
    if (isTwilio(first)) return { preset: 'twilio', kind: twilioKind(first), records: { at: 'lines' } };
    // Twilio list pages saved one after another, a page per line: the page's list holds the records.
    const page = recognizePage(first);
    return page === undefined ? undefined : { ...page, records: { at: 'lines', type: page.records.at } };
  },
  // The Twilio CLI's `-o json`: a bare array of camelCase resources.
  array: ([first]) =>
    isTwilio(first) ? { preset: 'twilio', kind: twilioKind(first), records: { at: 'top' } } : undefined,
  document: (doc) => recognizePage(doc),
};

/** Twilio REST list pages: {"conversations": [...], "meta": {"key": "conversations", "page_size": 50, ...}}. */
function recognizePage(doc: JsonObject): Recognized | undefined {
  const meta = isObject(doc.meta) ? doc.meta : undefined;
  for (const [list, kind] of Object.entries(LIST_FILE_KINDS)) {
    const records = recordsAt(doc, list);
    if (Array.isArray(doc[list]) && (meta?.key === list || (records[0] !== undefined && isTwilio(records[0]))))
      return { preset: 'twilio', kind, records: { at: list } };
  }
  return undefined;
}

function isTwilio(record: JsonObject): boolean {
  const sid = str(record.sid);
  return sid !== undefined && TWILIO_SID.test(sid) && ('account_sid' in record || 'accountSid' in record);
}

function twilioKind(record: JsonObject): FileKind {
  const list = SID_PREFIX[(str(record.sid) ?? '').slice(0, 2).toUpperCase()];
  return LIST_FILE_KINDS[list ?? 'users'];
}
