// Nothing lost, nothing doubled: a dozen SIGKILLs at random moments, then resume. Each run draws a new
// seed and prints it; RESUME_SEED=<seed> replays that run (the slow tier holds 58 kills at fixed seeds).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONCURRENCY, killAndResume } from '../kill-resume.mjs';

test('SIGKILL at 12 random moments, a checkpoint write per batch: every record once', async (t) => {
  const seed = Number(process.env.RESUME_SEED ?? Math.floor(Math.random() * 2 ** 31));
  t.diagnostic(`seed ${seed} (RESUME_SEED=${seed} replays this run)`);
  const { kills, resent } = await killAndResume({ seed, kills: 12, config: { checkpointIntervalMs: 0 } });
  assert.ok(kills >= 8, `only ${kills} kills landed (seed ${seed})`);
  // A kill re-sends at most the batches unsettled: in flight, or answered and waiting for their write.
  const bound = kills * 2 * CONCURRENCY * 50;
  assert.ok(resent <= bound, `${resent} re-sent records for ${kills} kills, over ${bound} (seed ${seed})`);
});
