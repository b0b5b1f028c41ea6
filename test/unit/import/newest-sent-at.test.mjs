// The newest sentAt a reading of a message file keeps: the largest of its records', and none once a
// slot holds no record or a record without a time (a verify with a window then reads the file).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { noteSentAt } from '../../../dist/pipeline/import/file-cursor.js';

const slot = (ordinal, payload) => ({ ordinal, record: payload && /** @type {any} */ ({ payload }) });

test('the newest sentAt of a reading: the largest, unknown once a slot has none, file problems aside', () => {
  const cursor = /** @type {any} */ ({ newest: Number.NEGATIVE_INFINITY });
  noteSentAt(cursor, slot(0, { sentAt: 20 }));
  noteSentAt(cursor, slot(1, { sentAt: 10 }));
  noteSentAt(cursor, slot(-1, undefined));
  assert.equal(cursor.newest, 20, 'a problem of the file itself is no slot');
  noteSentAt(cursor, slot(2, { sentAt: 'yesterday' }));
  noteSentAt(cursor, slot(3, { sentAt: 30 }));
  assert.ok(Number.isNaN(cursor.newest), 'a record without a time: the newest is unknown for good');
  const bad = /** @type {any} */ ({ newest: 5 });
  noteSentAt(bad, slot(4, undefined));
  assert.ok(Number.isNaN(bad.newest), 'a slot that is not a record (a line that is not JSON): unknown');
});
