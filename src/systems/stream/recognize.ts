import type { Recognizer } from '../detect/recognize.js';
import { isObject } from '../shared/items.js';
import { LINE_TYPES } from './layout.js';

export const recognizeStream: Recognizer = {
  lines(first) {
    if (typeof first.type === 'string' && LINE_TYPES.has(first.type) && (isObject(first.data) || isObject(first.item)))
      return { preset: 'stream', kind: 'mixed', records: { at: 'lines', type: 'message' } };
    // Stream's channel export v2: one `{channel, messages, members}` object per line.
    if (isObject(first.channel) && typeof first.channel.cid === 'string')
      return { preset: 'stream', kind: 'mixed', records: { at: 'lines', type: 'message' } };
    return undefined;
  },
  array([first]) {
    if (typeof first.type === 'string' && LINE_TYPES.has(first.type) && isObject(first.item))
      return { preset: 'stream', kind: 'mixed', records: { at: 'top', type: 'message' } };
    if (isObject(first.channel) && typeof first.channel.cid === 'string')
      return { preset: 'stream', kind: 'mixed', records: { at: 'top', type: 'message' } };
    return undefined;
  },
  // Stream's channel export v1, one channel per file.
  document: (doc) =>
    isObject(doc.channel) && typeof doc.channel.cid === 'string'
      ? { preset: 'stream', kind: 'mixed', records: { at: 'messages' } }
      : undefined,
};
