// Nothing lost, nothing doubled: SIGKILL at random moments, then resume, then count what the sandbox holds.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { mulberry32 } from '../dist/sandbox/index.js';
import { collect, readNdjson, runCli, sandbox, spawnCli, tempDir, writeConfig, writeGeneratedExport } from './helpers.mjs';

const CONCURRENCY = 4;

/**
 * Kills an import `kills` times at random moments (each after a few more requests reach the sandbox),
 * resumes to the end, checks every record is stored once, and returns the kills that landed and the
 * records the sandbox was sent again.
 */
async function killAndResume({ seed, kills: attempts, config = {} }) {
  const random = mulberry32(seed); // seeded, so a failure can be replayed
  const sb = await sandbox({ latencyMs: 15 });
  try {
    const dir = await tempDir();
    const { counts, sources } = await writeGeneratedExport(dir, { users: 300, groups: 12, membersPerGroup: 25, messages: 3000 });
    await writeConfig(dir, { baseUrl: sb.url, sources, concurrency: CONCURRENCY, requestsPerMinute: 1e9, ...config });
    let kills = 0;
    let previousRequests = 0;
    for (let i = 0; i < attempts; i++) {
      const child = spawnCli(['import'], { cwd: dir });
      const done = collect(child);
      // Kill after a random number of further requests reach the sandbox (0 = during start-up or a checkpoint write).
      const target = previousRequests + Math.floor(random() * 6);
      const deadline = Date.now() + 15_000;
      while (sb.stats().requests < target && Date.now() < deadline && child.exitCode === null) {
        await new Promise((r) => setTimeout(r, 2));
      }
      await new Promise((r) => setTimeout(r, Math.floor(random() * 12)));
      const killed = child.kill('SIGKILL');
      const result = await done;
      if (killed && result.signal === 'SIGKILL') kills++;
      else assert.equal(result.code, 0, result.stderr);
      previousRequests = sb.stats().requests;
    }
    const final = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(final.code, 0, final.stderr);
    const stats = sb.stats();
    let resent = 0;
    for (const [entity, n] of Object.entries(counts)) {
      assert.equal(stats.perEntity[entity].stored, n, `${entity}: every record present once`);
      resent += stats.perEntity[entity].alreadyExists;
    }
    assert.deepEqual(await readNdjson(path.join(dir, 'migrate-rejects.ndjson')), []);
    // The checkpoint of the finished run is whole and says every phase is done.
    const checkpoint = JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
    assert.deepEqual(checkpoint.phasesDone, ['users', 'groups', 'members', 'messages']);
    return { kills, resent };
  } finally {
    await sb.close();
  }
}

test('SIGKILL at 24 random moments, a checkpoint write per batch: every record once, re-sent at most the batches in flight', async () => {
  const { kills, resent } = await killAndResume({ seed: 20261122, kills: 24, config: { checkpointIntervalMs: 0 } });
  assert.ok(kills >= 20, `only ${kills} kills landed`);
  assert.ok(resent <= kills * CONCURRENCY * 50, `${resent} re-sent records for ${kills} kills`);
});

test('SIGKILL at 12 random moments with writes 200 ms apart (the default): every record once', async () => {
  const { kills } = await killAndResume({ seed: 7, kills: 12 });
  assert.ok(kills >= 10, `only ${kills} kills landed`);
});
