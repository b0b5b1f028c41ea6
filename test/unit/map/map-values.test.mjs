// The `values` of a source: a fixed value for a field the record lacks; the record's own value wins.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENTITIES } from '../../../dist/entities/index.js';
import { createMapper } from '../../../dist/pipeline/map/map.js';

/** @type {(value: Record<string, unknown>) => import('../../../dist/entities/types.js').SourceRecord} */
const item = (value) => ({ kind: 'record', value, file: 'm.csv', line: 2, ordinal: 0 });

test('values fill what the record lacks, after map, and never replace what it has', () => {
  const map = createMapper({
    entity: ENTITIES.messages,
    map: { muid: 'id', 'data.text': 'body' },
    values: { receiverType: 'group', type: 'text', 'data.metadata.source': 'legacy' },
  });
  const filled = map(item({ id: 'm1', body: 'hi', sender: 'u', receiver: 'g', sentAt: 1700000000 }));
  assert.equal(filled.payload.receiverType, 'group');
  assert.equal(filled.payload.type, 'text');
  assert.deepEqual(filled.payload.data, { text: 'hi', metadata: { source: 'legacy' } });
  assert.deepEqual(filled.problems, []);
  const own = map(item({ id: 'm2', body: 'hi', sender: 'u', receiver: 'v', receiverType: 'user', sentAt: 1 }));
  assert.equal(own.payload.receiverType, 'user');
});
