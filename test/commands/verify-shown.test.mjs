// A field the service's reads do not carry at all is not compared: verify says so once, counts no
// record different for it and repairs nothing; a field it carries that differs stays different. The
// sandbox leaves `metadata` out of group reads, which the read reference leaves open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli, sandbox } from '../helpers.mjs';
import { importRun, verify, verifyWorkspace } from '../verify-helpers.mjs';

const groups = (rename = {}) =>
  Array.from({ length: 3 }, (_, i) => ({
    guid: `grp${i}`,
    name: rename[i] ?? `Group ${i}`,
    type: 'public',
    metadata: { team: `t${i}`, ...(rename[i] ? { edited: true } : {}) },
  }));
const writeGroups = (dir, list) =>
  writeFile(path.join(dir, 'groups.ndjson'), list.map((g) => `${JSON.stringify(g)}\n`).join(''));

test('group reads without metadata: not compared, said once; a name that differs is still different', async (t) => {
  const sb = await sandbox({ groupReadsWithoutMetadata: true });
  t.after(() => sb.close());
  const ws = await verifyWorkspace(sb.url, { messages: 6 });
  await writeGroups(ws.dir, groups());
  assert.equal((await importRun(ws.dir)).code, 0);

  const run = await verify(ws.dir, ['--json']);
  assert.equal(run.code, 0, run.stdout);
  const g = JSON.parse(run.stdout).entities.groups;
  assert.deepEqual(
    { present: g.present, different: g.different, notShown: g.notShown },
    {
      present: 3,
      different: 0,
      notShown: ['metadata'],
    },
  );
  // Every field the users were sent with is shown: nothing is said of them.
  assert.equal(JSON.parse(run.stdout).entities.users.notShown, undefined);
  const text = await verify(ws.dir);
  assert.equal(text.code, 0, text.stdout);
  assert.equal(text.stdout.match(/not compared for/g)?.length, 1);
  assert.match(text.stdout, /note: not compared for groups: metadata: the export gives it, but no item/);
  // The report says it too, to those who sign off and never run verify.
  assert.equal((await runCli(['report', '--out', 'report.html'], { cwd: ws.dir })).code, 0);
  const page = await readFile(path.join(ws.dir, 'report.html'), 'utf8');
  assert.match(page, /data-figure="verify.notShown">Not compared, as no record .*: groups: metadata\.<\/p>/);
  // Nothing to repair for it, and nothing sent.
  const repaired = await verify(ws.dir, ['--repair']);
  assert.equal(repaired.code, 0, repaired.stdout);
  assert.match(repaired.stdout, /repair: nothing was missing, nothing was sent/);

  // The export now says grp1 has another name (and other metadata): the name differs, and only it is named.
  await writeGroups(ws.dir, groups({ 1: 'Renamed' }));
  const changed = await verify(ws.dir, ['--json']);
  assert.equal(changed.code, 3, changed.stdout);
  const after = JSON.parse(changed.stdout).entities.groups;
  assert.equal(after.different, 1);
  assert.deepEqual(after.differentRecords, [
    {
      id: 'grp1',
      file: 'groups.ndjson',
      line: 2,
      fields: [{ field: 'name', expected: 'Renamed', actual: 'Group 1' }],
    },
  ]);
});

test('group reads with metadata: a metadata that differs is different, and nothing is said unshown', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const ws = await verifyWorkspace(sb.url, { messages: 6 });
  await writeGroups(ws.dir, groups());
  assert.equal((await importRun(ws.dir)).code, 0);
  const list = groups();
  list[2].metadata = { team: 'other' };
  await writeGroups(ws.dir, list);
  const run = await verify(ws.dir, ['--json']);
  assert.equal(run.code, 3, run.stdout);
  const g = JSON.parse(run.stdout).entities.groups;
  assert.equal(g.different, 1);
  assert.equal(g.notShown, undefined);
  assert.deepEqual(
    g.differentRecords[0].fields.map((f) => f.field),
    ['metadata'],
  );
});
