// Ctrl+C: the first stops taking batches, finishes those in flight, saves the checkpoint and says how to
// resume (exit 130); a second exits at once, still leaving a valid checkpoint.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import {
  collect,
  generatedWorkspace,
  runCli,
  sandbox,
  spawnCli,
  waitFor,
  waitForOutput,
  waitForRequests,
} from '../helpers.mjs';

const slowRun = (sb, messages) => generatedWorkspace(sb, { users: 100, groups: 4, membersPerGroup: 10, messages });

test('SIGINT: in-flight batches finish, checkpoint saved, exit 130 with how to resume; resume completes', async () => {
  // Real time: the SIGINT must land while batches are in flight.
  const sb = await sandbox({ latencyMs: 250 });
  try {
    // 20 batches: two answered before the stop, the rest read ahead or left for the resume.
    const { dir, counts } = await slowRun(sb, 1000);
    const child = spawnCli(['import', '--json'], { cwd: dir });
    const done = collect(child);
    await waitForRequests(sb, 2, { entity: 'messages' });
    const sentAt = Date.now();
    child.kill('SIGINT');
    const result = await done;
    assert.equal(result.code, 130, result.stderr);
    assert.ok(Date.now() - sentAt < 5000, 'stopped within a few seconds');
    assert.match(result.stderr, /stopping: finishing the batches in flight/);
    // Every record read is accounted for: what the stop left unanswered is counted as not sent yet.
    const m = JSON.parse(result.stdout).entities.messages;
    assert.equal(m.status ?? 'interrupted', 'interrupted');
    assert.ok(m.unsent > 0, `records read but not sent: ${JSON.stringify(m)}`);
    assert.equal(m.read, m.imported + m.alreadyPresent + m.rejected + m.skipped + m.resumed + m.unsent);
    const text = await runCli(['status'], { cwd: dir });
    assert.equal(text.code, 0);
    const checkpoint = JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
    assert.ok(!checkpoint.phasesDone.includes('messages'));
    // Every batch that reached the sandbox was acknowledged in the checkpoint: nothing is sent twice on resume.
    const resumed = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(sb.stats().perEntity.messages.alreadyExists, 0);
    assert.equal(sb.stats().perEntity.messages.stored, counts.messages);
  } finally {
    await sb.close();
  }
});

test('a second SIGINT exits at once and the checkpoint stays valid; the resume completes', async () => {
  // Real time: the second SIGINT must land while batches are still in flight.
  const sb = await sandbox({ latencyMs: 1500 });
  try {
    // One batch of messages: the resume pays the 1.5 s answer once per phase, not more.
    const { dir, counts } = await slowRun(sb, 50);
    const child = spawnCli(['import'], { cwd: dir });
    const done = collect(child);
    // The sandbox counts an entity's request when it answers, and every request as it arrives: groups
    // answered and one more arrived, so members' request is in flight, its answer 1.5 s away.
    await waitFor(
      () => {
        const { requests, perEntity } = sb.stats();
        return perEntity.groups.requests >= 1 && requests > perEntity.users.requests + perEntity.groups.requests;
      },
      { timeoutMs: 30_000, what: "members' request in flight" },
    );
    const stopping = waitForOutput(child, /stopping: finishing the batches in flight/);
    child.kill('SIGINT');
    // The second Ctrl+C once the first was taken (two signals sent at once may arrive as one).
    await stopping;
    const sentAt = Date.now();
    child.kill('SIGINT');
    const result = await done;
    assert.equal(result.code, 130, result.stderr);
    assert.ok(Date.now() - sentAt < 1200, 'second Ctrl+C does not wait for the 1.5 s answer');
    const checkpoint = JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
    assert.equal(checkpoint.tool, 'chat-migrate');
    assert.deepEqual(checkpoint.phasesDone, ['users', 'groups']);
    const resumed = await runCli(['import'], { cwd: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    for (const [entity, n] of Object.entries(counts)) assert.equal(sb.stats().perEntity[entity].stored, n, entity);
  } finally {
    await sb.close();
  }
});
