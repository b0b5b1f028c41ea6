// Undo, then import again (issue 36, point 1): the rehearsal loop the docs describe, on every preset
// export and on fixtures/. The second import stores what the first did, under the config's id rule.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { FIXTURES, fixtureWorkspace, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const PRESETS = path.join(FIXTURES, 'presets');
const RATES = { requestsPerMinute: 1e9, restRequestsPerMinute: 1e9 };
const ids = (records) => Object.fromEntries(Object.entries(records).map(([e, byId]) => [e, Object.keys(byId).sort()]));

/** import, undo --yes, import: the second import ends as the first, and the sandbox holds the same ids. */
async function rehearse(t, makeDir) {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await makeDir(sb.url);
  const first = await runCli(['import'], { cwd: dir });
  const stored = ids(sb.records());
  const undo = await runCli(['undo', '--yes'], { cwd: dir });
  assert.equal(undo.code, 0, undo.stderr);
  const again = await runCli(['import'], { cwd: dir });
  assert.doesNotMatch(again.stderr, /CHECKPOINT_OTHER_ID_RULE|--id-rule/);
  assert.equal(again.code, first.code, `${again.stderr}\n${again.stdout}`);
  assert.deepEqual(ids(sb.records()), stored);
}

for (const folder of await readdir(PRESETS)) {
  const preset = folder.replace(/-(ugly|export|pull)$/, '');
  test(`undo, then import again, on fixtures/presets/${folder}`, async (t) => {
    await rehearse(t, async (baseUrl) => {
      const dir = await tempDir();
      await writeConfig(dir, { baseUrl, ...RATES, preset, from: path.join(PRESETS, folder) });
      return dir;
    });
  });
}

test('undo, then import again, on fixtures/', async (t) => {
  await rehearse(t, (baseUrl) => fixtureWorkspace(baseUrl, RATES));
});

test('verify into another target names the checkpoint target, not a flag verify refuses', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await fixtureWorkspace(sb.url, RATES);
  assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
  const other = await runCli(['verify', '--base-url', 'http://127.0.0.1:9'], { cwd: dir });
  assert.match(other.stderr, /CHECKPOINT_OTHER_TARGET/);
  assert.doesNotMatch(other.stderr, /--fresh/);
  assert.match(other.stderr, new RegExp(`its target is ${sb.url.replace(/[.]/g, '\\.')}`));
});
