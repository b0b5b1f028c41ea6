// `status`'s two formats, drawn from one checkpoint's data: the text a person reads and the --json a CI
// job parses say the same counts. The commands' tests read one format each; the formatting is tested here.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readCheckpoint } from '../../../dist/checkpoint/store.js';
import { formatStatus } from '../../../dist/report/status-report.js';
import { fixtureWorkspace, runCli, sandbox } from '../../helpers.mjs';

/** The checkpoint of the fixtures imported with two records refused. */
async function importedCheckpoint(t) {
  const sb = await sandbox({ faults: { poisonIdPattern: '^(msg_00007|msg_00011)$' } });
  t.after(() => sb.close());
  const dir = await fixtureWorkspace(sb.url);
  const run = await runCli(['import'], { cwd: dir });
  assert.ok([0, 3].includes(run.code), run.stderr);
  const file = path.join(dir, '.migrate-checkpoint.json');
  return { file, data: await readCheckpoint(file) };
}

test('status as text and as JSON, from one checkpoint: the same status line and counts', async (t) => {
  const { file, data } = await importedCheckpoint(t);
  const doc = JSON.parse(formatStatus(file, data, true));
  const text = formatStatus(file, data, false);
  assert.equal(doc.exists, true);
  assert.ok(text.includes(`  ${doc.migration.statusLine}\n`), text);
  for (const [entity, row] of Object.entries(doc.migration.entities)) {
    const line = text.split('\n').find((l) => l.startsWith(`${entity} (`));
    assert.ok(line, `${entity} has a line`);
    assert.ok(line.includes(`${row.imported} imported`), line);
    assert.ok(line.includes(`${row.open} rejected and not in yet`), line);
  }
  for (const f of doc.files) assert.ok(text.includes(`  ${f.file}: `), `${f.file} listed`);
});

test('status without a checkpoint: text and JSON say so in the same words', () => {
  const doc = JSON.parse(formatStatus('/nowhere/ckpt.json', undefined, true));
  assert.equal(doc.exists, false);
  assert.equal(
    formatStatus('/nowhere/ckpt.json', undefined, false),
    `No checkpoint at /nowhere/ckpt.json: ${doc.migration.statusLine}\n`,
  );
});
