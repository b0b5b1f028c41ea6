// Verify's memory is flat: the comparison is held on disk and compared a part at a time. Forced into
// many small parts (an internal knob), a verify finds exactly what the one-part verify finds, while
// the service lists records in another order than the export's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox } from '../helpers.mjs';
import { importRun, missingLines, verify, verifyWorkspace } from '../verify-helpers.mjs';

const reversed = (text) => `${text.trim().split('\n').reverse().join('\n')}\n`;

test('verify in many parts finds what one part finds, whatever order the service lists records in', async (t) => {
  const sb = await sandbox({ faults: { losePattern: '^(user3|msg7|msg12|msg41)$' } });
  t.after(() => sb.close());
  const ws = await verifyWorkspace(sb.url);
  const files = Object.fromEntries(
    await Promise.all(
      ['users', 'messages'].map(async (e) => [e, await readFile(path.join(ws.dir, `${e}.ndjson`), 'utf8')]),
    ),
  );
  // Imported from the files reversed, so the service lists users and messages backwards.
  for (const [e, text] of Object.entries(files)) await writeFile(path.join(ws.dir, `${e}.ndjson`), reversed(text));
  assert.equal((await importRun(ws.dir)).code, 0);
  // The export as it was, with msg20's text changed since: one different record.
  const messages = files.messages.replace('"text":"hello 20"', '"text":"hello twenty"');
  await writeFile(path.join(ws.dir, 'messages.ndjson'), messages);
  await writeFile(path.join(ws.dir, 'users.ndjson'), files.users);

  const whole = await verify(ws.dir, ['--json']);
  const parted = await verify(ws.dir, ['--json'], { env: { MIGRATE_VERIFY_PART_RECORDS: '5' } });
  assert.equal(whole.code, 3, whole.stderr);
  assert.equal(parted.code, 3, parted.stderr);
  const [a, b] = [JSON.parse(whole.stdout), JSON.parse(parted.stdout)];
  assert.deepEqual(b.entities, a.entities);
  assert.equal(a.held.parts, 1);
  // 60 messages in parts of about 5: never more than a fraction of them in memory at once.
  assert.equal(b.held.parts, 12);
  assert.ok(b.held.atMost <= 12, `held ${b.held.atMost} records at once`);
  const m = b.entities.messages;
  assert.deepEqual(
    { missing: m.missing, different: m.different, present: m.present },
    {
      missing: 3,
      different: 1,
      present: 56,
    },
  );
  assert.deepEqual(m.differentRecords[0].fields, [{ field: 'text', expected: 'hello twenty', actual: 'hello 20' }]);

  // The text report lists them in the export's order, and --repair sends the missing ones in either way.
  const text = await verify(ws.dir, [], { env: { MIGRATE_VERIFY_PART_RECORDS: '5' } });
  assert.deepEqual(missingLines(text.stdout), [
    'users.ndjson:4: user user3',
    'messages.ndjson:8: message msg7',
    'messages.ndjson:13: message msg12',
    'messages.ndjson:42: message msg41',
  ]);
  const repaired = await verify(ws.dir, ['--repair', '--json'], { env: { MIGRATE_VERIFY_PART_RECORDS: '5' } });
  const after = JSON.parse(repaired.stdout);
  assert.deepEqual(after.repair.sent, { users: 1, messages: 3 });
  assert.equal(after.entities.messages.missing, 0);
  assert.equal(after.entities.messages.different, 1);
});

test('what a killed verify left beside the checkpoint is removed by the next; nothing stays after', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const ws = await verifyWorkspace(sb.url);
  assert.equal((await importRun(ws.dir)).code, 0);
  // A SIGKILL's leftover: the killed verify's parts under the migration's spill folder.
  const spill = path.join(ws.dir, '.migrate-checkpoint.json.verify');
  await mkdir(path.join(spill, '.verify-killed'), { recursive: true });
  await writeFile(path.join(spill, '.verify-killed', 'part-1'), 'x'.repeat(1024));
  const run = await verify(ws.dir, ['--json']);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    (await readdir(ws.dir)).filter((f) => f.includes('.verify')),
    [],
  );
});
