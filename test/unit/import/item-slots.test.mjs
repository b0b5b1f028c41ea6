// The one count of what a run reads (import, validate in both threads, the duplicate re-read):
// what each kind of item counts as, and the slot it holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BAD_SLOT, countsAsRead, FILE_PROBLEM, ItemSlots, RECORD, SKIP } from '../../../dist/pipeline/item-slots.js';
import { createMapper } from '../../../dist/pipeline/map/map.js';
import { ENTITIES } from '../../../dist/entities/index.js';

const message = { muid: 'm1', sender: 'u1', receiverType: 'group', receiver: 'g1', sentAt: 1700000000 };
Object.assign(message, { category: 'message', type: 'text', data: { text: 'hi' } });
/** Where an item was read: a slot with its ordinal, or (undefined) none. */
const at = (ordinal) => ({ file: 'm.ndjson', line: (ordinal ?? 0) + 1, ...(ordinal === undefined ? {} : { ordinal }) });

test('each kind of item: counted as read or not, its ordinal, its kind; records mapped (the map decides skips)', () => {
  const slots = new ItemSlots(createMapper({ entity: ENTITIES.messages }));
  const items = [
    { kind: 'problem', ...at(undefined), rule: 'input.json-shape', message: 'x', fatalForFile: true },
    { kind: 'problem', ...at(4), rule: 'input.utf8', message: 'x' },
    { kind: 'record', ...at(5), value: message },
    { kind: 'record', ...at(6), value: { ...message, muid: 'm2', deletedAt: 1700000001 } },
    { kind: 'skipped' },
    { kind: 'checked', line: 9, id: 'm3', refs: {} },
  ];
  const seen = items.map((item) => {
    const kind = slots.kindOf(/** @type {any} */ (item));
    return [kind, countsAsRead(kind), slots.ordinal, slots.record?.id];
  });
  assert.deepEqual(seen, [
    [FILE_PROBLEM, false, -1, undefined],
    [BAD_SLOT, true, 4, undefined],
    [RECORD, true, 5, 'm1'],
    [SKIP, true, 6, 'm2'],
    [SKIP, true, -1, undefined],
    [RECORD, true, -1, undefined],
  ]);
});
