// The pull core's one process test: a pull killed with SIGKILL mid-way resumes from its journal. A kill
// needs a process; the other behaviours of the pull core (deltas, 429 storms, refused credentials) are
// tested in-process through test/commands/pull-sendbird.test.mjs, and each source's own paging, auth and shapes in
// test/commands/pull-<source>.test.mjs. Sendbird carries it: its fake (in this process) pages every list.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { startFake } from '../fakes/helpers.mjs';
import { runCli, spawnCli, tempDir, waitFor } from '../helpers.mjs';

/** Every message id the pull wrote, across its run folders. */
async function pulledMessages(out) {
  const ids = [];
  for (const entry of await readdir(out, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const doc = JSON.parse(await readFile(path.join(entry.parentPath ?? entry.path, entry.name), 'utf8'));
    ids.push(...(doc.messages ?? []).map((m) => String(m.message_id)));
  }
  return ids;
}

test('a pull killed with SIGKILL resumes: only pages in flight fetched twice, nothing written twice', async (t) => {
  // The latency keeps pages in flight long enough for the kill to land mid-pull.
  const fake = await startFake(t, 'sendbird', { world: { channels: 6, messages: 6000, seed: 3 }, latencyMs: 15 });
  const args = ['pull', 'sendbird', '--out', 'pulled', '--base-url', fake.url, '--source-concurrency', '2'];
  const clean = await tempDir('cm-pull-kill-');
  assert.equal((await runCli(args, { cwd: clean, env: fake.env })).code, 0);
  const needed = fake.stats().requests;

  const dir = await tempDir('cm-pull-kill-');
  const child = spawnCli(args, { cwd: dir, env: fake.env });
  const closed = once(child, 'close');
  await waitFor(() => fake.stats().requests - needed >= needed / 2, { what: 'half the pages' });
  child.kill('SIGKILL');
  await closed;
  const resumed = await runCli([...args, '--json'], { cwd: dir, env: fake.env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).resumed, true);
  assert.match(resumed.stderr, /resuming the pull/);
  const spent = fake.stats().requests - needed;
  assert.ok(spent >= needed, `${spent} requests for ${needed} pages`);
  assert.ok(spent <= needed + 2, `${spent - needed} pages fetched twice; 2 channels were in flight`);
  const ids = await pulledMessages(path.join(dir, 'pulled'));
  assert.equal(ids.length, fake.stats().messages, 'every message once');
  assert.equal(new Set(ids).size, ids.length, 'nothing written twice');
  const partial = (await readdir(path.join(dir, 'pulled'), { recursive: true })).filter((f) => f.endsWith('.partial'));
  assert.deepEqual(partial, [], 'every file renamed into place');
});
