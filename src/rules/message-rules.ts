import type { JsonObject, MappedRecord, Problem } from '../entities/types.js';
import { checkIdMatches, checkIdValue, checkRequiredId, checkTags, checkTimestamps } from './common-rules.js';
import { checkAttachments } from './attachment-rules.js';
import { checkForms } from './form-rules.js';
import { problem } from './rules.js';
import {
  bytesOverLimit,
  codePointLength,
  formatCount,
  isAbsent,
  isBlank,
  isObject,
  isoTime,
  mapperFlagged,
  typeName,
} from './values.js';
import { jsonBytesBoundWatching } from '../json/size-bound.js';

// Comparisons, not Set lookups: a few short-string tests cost less than hashing the value per record.
const isReceiverType = (v: unknown): boolean => v === 'user' || v === 'group';
// Only these two categories exist in the import schema; `action` and `call` messages are made by the service.
const isCategory = (v: unknown): boolean => v === 'message' || v === 'custom';
const isMessageType = (v: unknown): boolean =>
  v === 'text' || v === 'image' || v === 'file' || v === 'audio' || v === 'video';
const MENTION = /<@uid:([^>]*)>/g;
const MENTION_START = '<@uid:';

export const MESSAGE_LIMITS = {
  dataBytes: 10_240,
  messageChars: 65_536,
  mentions: 10,
} as const;

export function validateMessage(record: MappedRecord, nowSec: number, out: Problem[]): void {
  const p = record.payload;
  if (checkRequiredId(out, p.muid, 'muid')) checkIdMatches(out, record, p.muid, 'muid');
  requireRef(out, p.sender, 'sender');
  const receiverType = p.receiverType;
  if (isAbsent(receiverType)) {
    out.push(problem('message.required', 'receiverType', 'receiverType is required: user or group'));
  } else if (!isReceiverType(receiverType)) {
    out.push(
      problem(
        'message.receiver-type',
        'receiverType',
        `receiverType must be user or group; got ${JSON.stringify(receiverType)}`,
      ),
    );
  }
  requireRef(out, p.receiver, 'receiver');
  if (isAbsent(p.sentAt)) out.push(problem('message.required', 'sentAt', 'sentAt is required'));
  checkTimestamps(out, record, nowSec);
  checkReceiptOrder(out, p);
  const category = isAbsent(p.category) ? 'message' : p.category;
  if (!isCategory(category)) {
    out.push(
      problem('message.category', 'category', `category must be message or custom; got ${JSON.stringify(category)}`),
    );
  } else {
    checkType(out, category as string, p.type);
  }
  checkTags(out, record);

  const data = p.data;
  let dataBound = 0;
  if (!isAbsent(data) && !mapperFlagged(record, 'data')) {
    if (!isObject(data)) {
      out.push(problem('data.not-object', 'data', `data must be a JSON object; got ${typeName(data)}`));
    } else {
      const { bytes, sawKey: hasForms } = jsonBytesBoundWatching(data, 'formFields');
      dataBound = bytes;
      // Serialised only when it could matter: near the size limit, or to find forms.
      const dataJson = dataBound > MESSAGE_LIMITS.dataBytes || hasForms ? JSON.stringify(data) : undefined;
      checkData(out, record, data, dataJson, hasForms, category, p.type);
    }
  } else if (isAbsent(data) && category === 'message') {
    checkContent(out, undefined, p.type);
  }
  checkMessageSize(out, p, dataBound);
}

function requireRef(out: Problem[], v: unknown, field: 'sender' | 'receiver'): void {
  if (isAbsent(v) || v === '') out.push(problem('message.required', field, `${field} is required`));
  else checkIdValue(out, field, v);
}

function checkType(out: Problem[], category: string, type: unknown): void {
  if (isAbsent(type) || type === '') {
    out.push(
      problem(
        'message.type',
        'type',
        category === 'message' ? 'type is required: text, image, file, audio or video' : 'type is required',
      ),
    );
  } else if (category === 'message' && !isMessageType(type)) {
    out.push(
      problem(
        'message.type',
        'type',
        `type must be text, image, file, audio or video when category is message; got ${JSON.stringify(type)}`,
      ),
    );
  } else if (typeof type !== 'string') {
    out.push(problem('message.type', 'type', `type must be a string; got ${typeName(type)}`));
  }
}

function checkReceiptOrder(out: Problem[], p: JsonObject): void {
  const sentAt = p.sentAt;
  if (typeof sentAt !== 'number' || !Number.isInteger(sentAt)) return;
  // Read by name: a load keyed by a variable field name costs more, once per message.
  checkReceipt(out, 'deliveredAt', p.deliveredAt, sentAt);
  checkReceipt(out, 'readAt', p.readAt, sentAt);
}

function checkReceipt(out: Problem[], field: string, v: unknown, sentAt: number): void {
  if (typeof v === 'number' && Number.isInteger(v) && v < sentAt) {
    out.push(problem('timestamp.before-sent', field, `${field} ${isoTime(v)} is before sentAt ${isoTime(sentAt)}`));
  }
}

function checkData(
  out: Problem[],
  record: MappedRecord,
  data: JsonObject,
  dataJson: string | undefined,
  hasForms: boolean,
  category: unknown,
  type: unknown,
): void {
  const bytes = dataJson === undefined ? 0 : bytesOverLimit(dataJson, MESSAGE_LIMITS.dataBytes);
  if (bytes > 0) {
    out.push(
      problem(
        'data.too-large',
        'data',
        `data is ${formatCount(bytes)} bytes of JSON; at most ${formatCount(MESSAGE_LIMITS.dataBytes)}`,
      ),
    );
  }
  // A cell whose JSON text the mapper could not parse was reported there already (field.json).
  if (!isAbsent(data.metadata) && !isObject(data.metadata) && !mapperFlagged(record, 'data.metadata')) {
    out.push(
      problem(
        'metadata.not-object',
        'data.metadata',
        `data.metadata must be a JSON object; got ${typeName(data.metadata)}`,
      ),
    );
  }
  const attachmentsFlagged = mapperFlagged(record, 'data.attachments');
  if (category === 'message') checkContent(out, data, type, attachmentsFlagged);
  else if (!isAbsent(data.attachments) && !attachmentsFlagged) checkAttachments(out, data.attachments);
  checkMentions(out, data.text);
  if (hasForms) checkForms(out, data, 'data');
}

/** What a `message` category needs to show: text for text messages, attachments for media. */
function checkContent(out: Problem[], data: JsonObject | undefined, type: unknown, attachmentsFlagged = false): void {
  const text = data?.text;
  if (type === 'text') {
    if (typeof text !== 'string') {
      const got = isAbsent(text) ? 'is required for a text message' : `must be a string; got ${typeName(text)}`;
      out.push(problem('message.text.empty', 'data.text', `data.text ${got}`));
    } else if (isBlank(text)) {
      out.push(problem('message.text.empty', 'data.text', 'data.text is empty or only whitespace'));
    }
    if (data !== undefined && !isAbsent(data.attachments) && !attachmentsFlagged)
      checkAttachments(out, data.attachments);
    return;
  }
  if (attachmentsFlagged) return;
  const attachments = data?.attachments;
  if (isAbsent(attachments) || (Array.isArray(attachments) && attachments.length === 0)) {
    if (isMessageType(type)) {
      out.push(
        problem('message.attachments.missing', 'data.attachments', `a ${String(type)} message has no attachments`),
      );
    }
    return;
  }
  checkAttachments(out, attachments);
}

function checkMentions(out: Problem[], text: unknown): void {
  if (typeof text !== 'string') return;
  // Counting occurrences first spares a Set for the usual message with few mentions.
  let count = 0;
  for (let at = text.indexOf(MENTION_START); at !== -1; at = text.indexOf(MENTION_START, at + MENTION_START.length))
    count++;
  if (count <= MESSAGE_LIMITS.mentions) return;
  const seen = new Set<string>();
  MENTION.lastIndex = 0;
  for (let m = MENTION.exec(text); m !== null; m = MENTION.exec(text)) seen.add(m[1].toLowerCase());
  if (seen.size > MESSAGE_LIMITS.mentions) {
    out.push(
      problem(
        'message.mentions.too-many',
        'data.text',
        `data.text mentions ${seen.size} distinct users; at most ${MESSAGE_LIMITS.mentions}`,
      ),
    );
  }
}

/**
 * Whole-message limit. A cheap upper bound (from `data`'s bound, already taken for its own limit)
 * settles almost every message; only one near the limit is serialised and measured.
 */
function checkMessageSize(out: Problem[], p: JsonObject, dataBound: number): void {
  const limit = MESSAGE_LIMITS.messageChars;
  if (messageLengthBound(p, dataBound) <= limit) return;
  // UTF-16 units overcount characters outside the BMP; count code points only past the limit.
  const chars = codePointLength(JSON.stringify(p));
  if (chars > limit) {
    out.push(
      problem(
        'message.too-large',
        undefined,
        `the message serialises to ${formatCount(chars)} characters of JSON; at most ${formatCount(limit)}`,
      ),
    );
  }
}

/** At least the JSON length of `p`: a JSON string escapes each UTF-16 unit to at most 6 characters. */
function messageLengthBound(p: JsonObject, dataBound: number): number {
  let n = 2;
  for (const key in p) {
    const v = p[key];
    n += key.length * 6 + 4;
    if (key === 'data' && dataBound > 0) n += dataBound;
    else if (typeof v === 'string') n += v.length * 6 + 2;
    else if (typeof v !== 'object' || v === null) n += 24;
    else n += JSON.stringify(v).length;
  }
  return n;
}
