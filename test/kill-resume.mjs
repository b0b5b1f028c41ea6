// Nothing lost, nothing doubled: SIGKILL an import at random moments, resume, count what the sandbox holds.
// Shared by the fast tier (a dozen kills from a fresh seed) and the slow one (58 kills, fixed seeds).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mulberry32 } from '../dist/sandbox/index.js';
import {
  collect,
  readNdjson,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitFor,
  writeConfig,
  writeGeneratedExport,
} from './helpers.mjs';

export const CONCURRENCY = 4;

/**
 * Kills an import `kills` times at random moments (each after a few more requests reach the sandbox),
 * resumes to the end, checks every record is stored once and every rejected one is in the rejects file
 * once, and returns the kills that landed and the records the sandbox was sent again. `spoil` may break
 * records of the export: it returns how many are to be rejected, and lowers `counts` to match.
 * `write` writes another export than the default one (four files, 3,000 messages).
 * @param {{ seed: number, kills: number, config?: object, faults?: object, latencyMs?: number,
 *   killWindowMs?: [number, number], spoil?: (dir: string, counts: any) => Promise<number>,
 *   write?: (dir: string) => Promise<{ counts: any, sources: any }>, recordsStep?: number }} options
 */
export async function killAndResume(options) {
  const { seed, kills: attempts, config = {}, faults, spoil, latencyMs = 15, killWindowMs } = options;
  const { write, recordsStep } = options;
  const random = mulberry32(seed); // seeded, so a failure can be replayed
  const sb = await sandbox({ latencyMs, faults });
  try {
    const dir = await tempDir();
    const { counts, sources } = write
      ? await write(dir)
      : await writeGeneratedExport(dir, { users: 300, groups: 12, membersPerGroup: 25, messages: 3000 });
    const rejected = spoil ? await spoil(dir, counts) : 0;
    await writeConfig(dir, { baseUrl: sb.url, sources, concurrency: CONCURRENCY, requestsPerMinute: 1e9, ...config });
    // What the kills are timed by: requests reaching the sandbox, or with `recordsStep` the records they
    // carry, which do not depend on how many records a request takes.
    const sent = () => {
      const stats = sb.stats();
      return recordsStep ? Object.values(stats.perEntity).reduce((n, e) => n + e.recordsReceived, 0) : stats.requests;
    };
    let kills = 0;
    let previous = 0;
    for (let i = 0; i < attempts; i++) {
      const child = spawnCli(['import'], { cwd: dir });
      const done = collect(child);
      // Kill after a random number of further requests (records) reach the sandbox (0 = during start-up
      // or a checkpoint write), or with `killWindowMs`, a random time in that window after the first one.
      const target = previous + (killWindowMs ? 1 : Math.floor(random() * (recordsStep ?? 6)));
      const unit = recordsStep ? 'records' : 'requests';
      await waitFor(() => sent() >= target || child.exitCode !== null, {
        everyMs: 2,
        what: `${target} ${unit} sent, or the run's end`,
      });
      // The random moment itself, drawn from the seed: a delay on purpose, not a wait for anything.
      const [from, to] = killWindowMs ?? [0, 12];
      await new Promise((r) => setTimeout(r, from + Math.floor(random() * (to - from))));
      const killed = child.kill('SIGKILL');
      const result = await done;
      if (killed && result.signal === 'SIGKILL') kills++;
      else assert.equal(result.code, 0, result.stderr);
      previous = sent();
    }
    const final = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(final.code, rejected > 0 ? 3 : 0, final.stderr);
    const stats = sb.stats();
    let resent = 0;
    for (const [entity, n] of Object.entries(counts)) {
      assert.equal(stats.perEntity[entity].stored, n, `${entity}: every record present once`);
      resent += stats.perEntity[entity].alreadyExists;
    }
    const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
    const places = rejects.map((r) => `${r.entity} ${r.file}:${r.line}`);
    assert.deepEqual(
      places.filter((p, i) => places.indexOf(p) !== i),
      [],
      'no record is in the rejects file twice',
    );
    assert.equal(rejects.length, rejected);
    // The checkpoint of the finished run is whole and says every phase is done.
    const checkpoint = JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
    assert.deepEqual(checkpoint.phasesDone, ['users', 'groups', 'members', 'messages']);
    return { kills, resent };
  } finally {
    await sb.close();
  }
}

/** Every 13th message without text, one member line that is not JSON, and one message the service fails on. */
export async function spoilExport(dir, counts) {
  const messages = (await readFile(path.join(dir, 'messages.ndjson'), 'utf8')).split('\n').filter(Boolean);
  let bad = 0;
  const spoilt = messages.map((line, i) => {
    if (i % 13 !== 3) return line;
    bad++;
    return JSON.stringify({ ...JSON.parse(line), data: { text: '' } });
  });
  await writeFile(path.join(dir, 'messages.ndjson'), `${spoilt.join('\n')}\n`);
  const members = (await readFile(path.join(dir, 'members.ndjson'), 'utf8')).split('\n').filter(Boolean);
  members[100] = '{"guid": "grp4", "uid":';
  await writeFile(path.join(dir, 'members.ndjson'), `${members.join('\n')}\n`);
  counts.messages -= bad + 1; // and msg1600, the poison
  counts.members -= 1;
  return bad + 2;
}
