// A sync round with nothing new reads no message file of the earlier rounds again, and its line says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, sandbox } from '../helpers.mjs';
import { startSyncFake, syncWorkspace } from '../sync-helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

test('a sync round with nothing new says how many files it did not read again', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const fake = await startSyncFake(t, { world: { users: 3, channels: 2, messages: 10, seed: 11 } });
  const dir = await syncWorkspace(sb);
  const args = ['sync', 'sendbird', '--out', 'state/export', '--rounds', '2', '--interval', '60', '--json'];
  const run = await runCli([...args, '--source-base-url', fake.url], {
    cwd: dir,
    env: fake.env,
    clock: virtualClock(),
  });
  assert.equal(run.code, 0, run.stderr);
  const [first, second] = JSON.parse(run.stdout).rounds;
  assert.ok(first.imported > 0, JSON.stringify(first));
  assert.equal(first.unchangedFiles, 0);
  assert.equal(second.imported + second.alreadyPresent + second.rejected, 0, JSON.stringify(second));
  assert.ok(second.unchangedFiles > 0, JSON.stringify(second));
  const files = second.unchangedFiles;
  assert.match(
    run.stderr,
    new RegExp(`round 2: nothing new: ${files} files? unchanged \\(not read again\\); verified`),
  );
});
