// The long property runs of resume: 58 SIGKILLs at fixed seeds over four exports and fault mixes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeManyFilesExport } from '../helpers.mjs';
import { CONCURRENCY, killAndResume, spoilExport } from '../kill-resume.mjs';

// Each test has its own sandbox, export and child processes: two run at once, since much of a kill's
// cycle is a child starting up or waiting on its requests. The longest two go first.
describe('SIGKILL at random moments, then resume', { concurrency: 2 }, () => {
  test('SIGKILL at 16 random moments over 200 small message files: every record once', async () => {
    // Kills are timed by records sent, not requests, so they spread over the run whether a request
    // carries one small file (a batch stops at each file's end) or 50 records taken from several files.
    const { kills, resent } = await killAndResume({
      seed: 2014,
      kills: 16,
      recordsStep: 100,
      config: { checkpointIntervalMs: 0 },
      write: (dir) => writeManyFilesExport(dir, { files: 200, users: 60, groups: 6, membersPerGroup: 10 }),
    });
    assert.ok(kills >= 12, `only ${kills} kills landed`);
    assert.ok(resent <= kills * CONCURRENCY * 50, `${resent} re-sent records for ${kills} kills`);
  });

  test(
    'SIGKILL at 24 random moments, a checkpoint write per batch: ' +
      'every record once, re-sent at most the batches in flight',
    async () => {
      const { kills, resent } = await killAndResume({ seed: 20261122, kills: 24, config: { checkpointIntervalMs: 0 } });
      assert.ok(kills >= 20, `only ${kills} kills landed`);
      assert.ok(resent <= kills * CONCURRENCY * 50, `${resent} re-sent records for ${kills} kills`);
    },
  );

  test('SIGKILL at 10 random moments, rejects on the way: each rejected record in the rejects file once', async () => {
    // Runs long enough for checkpoint writes (200 ms apart), so each run gets further and its kill meets
    // rejects read ahead and batches answered but not yet in a checkpoint.
    const { kills } = await killAndResume({
      seed: 99,
      kills: 10,
      latencyMs: 40,
      killWindowMs: [100, 450],
      faults: { poisonIdPattern: '^msg1600$' },
      spoil: spoilExport,
    });
    assert.ok(kills >= 6, `only ${kills} kills landed`);
  });

  test('SIGKILL at 8 random moments with writes 200 ms apart (the default): every record once', async () => {
    // Killed within a few requests, a run would never reach its first deferred write: these live longer.
    const { kills } = await killAndResume({ seed: 7, kills: 8, latencyMs: 40, killWindowMs: [80, 300] });
    assert.ok(kills >= 5, `only ${kills} kills landed`);
  });
});
