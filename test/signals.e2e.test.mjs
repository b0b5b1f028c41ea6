// Ctrl+C: the first stops taking batches, finishes those in flight, saves the checkpoint and says how to
// resume (exit 130); a second exits at once, still leaving a valid checkpoint.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { collect, generatedWorkspace, runCli, sandbox, spawnCli, waitFor } from './helpers.mjs';

const slowRun = (sb, messages = 3000) =>
  generatedWorkspace(sb, { users: 100, groups: 4, membersPerGroup: 10, messages });

test('SIGINT: in-flight batches finish, checkpoint saved, exit 130 with how to resume; resume completes', async () => {
  const sb = await sandbox({ latencyMs: 250 });
  try {
    const { dir, counts } = await slowRun(sb);
    const child = spawnCli(['import', '--json'], { cwd: dir });
    const done = collect(child);
    await waitFor(() => sb.stats().perEntity.messages.requests >= 2);
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
  const sb = await sandbox({ latencyMs: 1500 });
  try {
    const { dir, counts } = await slowRun(sb, 200);
    const child = spawnCli(['import'], { cwd: dir });
    const done = collect(child);
    // The sandbox counts a request when it answers: groups answered, so members' request is now in flight.
    await waitFor(() => sb.stats().perEntity.groups.requests >= 1, { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 100));
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
