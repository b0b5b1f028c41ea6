// init maps a column whose values are the ids of another file to that reference, without asking
// (issue 36, point 5): participants.json's account_id, holding accounts.json's id values, is members.uid.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../helpers.mjs';

const json = (rows) => JSON.stringify(rows);

test("init: a column holding another file's ids maps to that reference without a question", async () => {
  const dir = await tempDir('cm-init-refs-');
  await writeFile(
    path.join(dir, 'accounts.json'),
    json([
      { id: 'a1', name: 'Ann' },
      { id: 'a2', name: 'Bo' },
    ]),
  );
  await writeFile(path.join(dir, 'rooms.json'), json([{ id: 'r1', name: 'General' }]));
  await writeFile(
    path.join(dir, 'participants.json'),
    json([
      { account_id: 'a1', room: 'r1', note: 'x' },
      { account_id: 'a2', room: 'r1', note: 'y' },
    ]),
  );
  const r = await runCli(['init', '.'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /uid <- account_id: its values are accounts\.json's id values/);
  const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  assert.deepEqual(config.sources.members.map, { uid: 'account_id', guid: 'room' });
  const v = await runCli(['validate', '--retention-days', '0'], { cwd: dir });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.match(v.stdout, /members\s+2 records, 0 errors/);
});

test('init: a column whose values are not all ids of another file is still asked for', async () => {
  const dir = await tempDir('cm-init-refs-');
  await writeFile(path.join(dir, 'accounts.json'), json([{ id: 'a1', name: 'Ann' }]));
  await writeFile(path.join(dir, 'rooms.json'), json([{ id: 'r1', name: 'General' }]));
  await writeFile(
    path.join(dir, 'participants.json'),
    json([
      { account_id: 'a1', room: 'r1' },
      { account_id: 'zz', room: 'r1' },
    ]),
  );
  const r = await runCli(['init', '.'], { cwd: dir });
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /participants\.json: no column for uid, which members need: name one with --pick uid=<column>/,
  );
});
