// Verify's parts on disk: the write buffers of the parts open at once stay within one budget, however
// many parts a large export needs, and every record still lands in its part.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from '../../helpers.mjs';
import { keyOf as hashOf } from '../../../dist/pipeline/verify/expected-index.js';
import { partOf, ServiceSpill } from '../../../dist/pipeline/verify/verify-store.js';

test('the service spill of 400 parts holds a few MB of buffers, not 256 KiB a part', async () => {
  const dir = await tempDir('cm-spill-');
  const before = process.memoryUsage().arrayBuffers;
  const spill = new ServiceSpill(dir, 'messages', 400);
  const held = process.memoryUsage().arrayBuffers - before;
  assert.ok(held < 8 * 2 ** 20, `${(held / 2 ** 20).toFixed(1)} MB of buffers for 400 parts`);
  const hashes = new Uint32Array(8);
  const keys = Array.from({ length: 5000 }, (_, i) => hashOf(`m${i}`));
  for (const [i, key] of keys.entries()) spill.add(`m${i}`, key, key, 1, hashes, [`m${i}`]);
  spill.sealWriters();
  // Every item is read back from the one part its key names, whatever the buffers' size.
  let found = 0;
  for (let p = 0; p < 400; p++) for (const item of spill.part(p)) found += partOf(item.key, 400) === p ? 1 : 0;
  assert.equal(found, 5000);
});
