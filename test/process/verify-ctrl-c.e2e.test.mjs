// Ctrl+C (SIGINT to the process) ends a verify at once: exit 130, the reads under way ended, nothing
// printed as a result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, spawnCli, waitForOutput } from '../helpers.mjs';
import { importRun, verifySandbox, verifyWorkspace } from '../verify-helpers.mjs';

test('Ctrl+C ends a verify at once: exit 130, reads under way ended, nothing printed as a result', async (t) => {
  const sb = await verifySandbox(t);
  const ws = await verifyWorkspace(sb.url, {}, { restRequestsPerMinute: 30 });
  assert.equal((await importRun(ws.dir)).code, 0);
  const child = spawnCli(['verify'], { cwd: ws.dir });
  const run = collect(child);
  // At 30 reads a minute the service's lists take ~20 s: stop it once it reads them.
  await waitForOutput(child, /\[users\] started/);
  const stoppedAt = Date.now();
  child.kill('SIGINT');
  const { code, stdout, stderr } = await run;
  assert.equal(code, 130, stderr);
  assert.ok(Date.now() - stoppedAt < 3000, `stopped in ${Date.now() - stoppedAt} ms`);
  assert.match(stderr, /stopping/);
  assert.equal(stdout, '');
});
