// validate and import name every file of the export folder their preset leaves unread (issue 36,
// point 4): a warning line with the count and the files, and `unreadFiles` in --json; the tool's own
// state files kept in the folder are not named.
import assert from 'node:assert/strict';
import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { FIXTURES, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

async function slackWorkspace(baseUrl) {
  const dir = await tempDir('cm-unread-');
  await cp(path.join(FIXTURES, 'presets', 'slack'), path.join(dir, 'export'), { recursive: true });
  await writeFile(path.join(dir, 'export', 'notes.csv'), 'a,b\n1,2\n');
  // The tool's own files, kept in the export folder: not the export's.
  await writeFile(path.join(dir, 'export', 'migrate-rejects.ndjson'), '');
  await writeFile(path.join(dir, 'export', 'state.imported.ndjson'), '');
  await writeConfig(dir, { preset: 'slack', from: 'export', checkpoint: 'export/state.json', baseUrl });
  return dir;
}

const EXPECTED = ['export/LICENSE', 'export/SOURCE.md', 'export/integration_logs.json', 'export/notes.csv'];

test('validate names the files the slack preset leaves unread, in text and in --json', async () => {
  const dir = await slackWorkspace('http://127.0.0.1:9');
  const v = await runCli(['validate'], { cwd: dir });
  assert.match(
    v.stderr,
    new RegExp(`warning: 4 files of the export are not read by the slack preset: ${EXPECTED.join(', ')}\\n`),
  );
  assert.doesNotMatch(v.stderr, /migrate-rejects|state\.imported/);
  const j = await runCli(['validate', '--json'], { cwd: dir });
  assert.deepEqual(JSON.parse(j.stdout).unreadFiles, EXPECTED);
});

test('import names them too, and its --json summary lists them', async () => {
  const box = await sandbox();
  try {
    const dir = await slackWorkspace(box.url);
    const r = await runCli(['import', '--json'], { cwd: dir });
    assert.match(r.stderr, /warning: 4 files of the export are not read by the slack preset: export\/LICENSE, /);
    assert.deepEqual(JSON.parse(r.stdout).unreadFiles, EXPECTED);
  } finally {
    await box.close();
  }
});
