// The id log (<checkpoint>.imported.ndjson): every record the service accepted, once, with the
// service's message ids, across re-runs and SIGKILLs. Real sandbox, real CLI child processes.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { mulberry32 } from '../../dist/sandbox/index.js';
import {
  collect,
  fixtureWorkspace,
  readNdjson,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitFor,
  writeConfig,
  writeGeneratedExport,
} from '../helpers.mjs';
import { PRESET_FIXTURES } from '../presets-helpers.mjs';

const LOG = '.migrate-checkpoint.imported.ndjson';

/** The log's lines about records: not the write-ahead (`sending`) and `answered` lines of its batches. */
const recordLines = async (file) => (await readNdjson(file)).filter((l) => l.entity !== undefined);

/** Lines by `<entity> <lower-cased id>`, asserting each record is there once. */
function byRecord(lines) {
  const map = new Map();
  for (const line of lines) {
    const key = `${line.entity} ${line.id.toLowerCase()}`;
    assert.ok(!map.has(key), `${key} is in the id log twice`);
    map.set(key, line);
  }
  return map;
}

/** Every record the sandbox holds is in the log once; every created message carries the sandbox's id. */
function assertLogMatches(lines, stored) {
  const logged = byRecord(lines);
  for (const [entity, records] of Object.entries(stored)) {
    for (const [id, record] of Object.entries(records)) {
      const line = logged.get(`${entity} ${id}`);
      assert.ok(line, `${entity} ${id} is stored but not in the id log`);
      if (entity === 'messages' && line.state === 'created') assert.equal(line.serviceId, record.id);
    }
  }
  const storedCount = Object.values(stored).reduce((n, r) => n + Object.keys(r).length, 0);
  assert.equal(logged.size, storedCount, 'no line for a record the sandbox does not hold');
}

for (const responseStyle of /** @type {const} */ (['flat', 'nested'])) {
  const name = `${responseStyle} answers: the id log holds each accepted record once; a re-run adds "existing" lines`;
  test(name, async () => {
    const sb = await sandbox({ responseStyle });
    try {
      const dir = await fixtureWorkspace(sb.url);
      const first = await runCli(['import'], { cwd: dir });
      assert.ok([0, 3].includes(first.code), first.stderr);
      const lines = await recordLines(path.join(dir, LOG));
      assert.ok(lines.length > 400);
      assert.ok(lines.every((l) => l.state === 'created' && typeof l.run === 'string'));
      assertLogMatches(lines, sb.records());
      const member = lines.find((l) => l.entity === 'members');
      assert.equal(member.id, `${member.guid}_member_${member.uid}`);
      assert.ok(lines.filter((l) => l.entity !== 'messages').every((l) => l.serviceId === undefined));

      // A fresh run over the same service: a new migration, with a new id log (the old one set aside).
      // Everything answers already-exists, and is logged as such (undo reads the set-aside log too).
      const again = await runCli(['import', '--fresh'], { cwd: dir });
      assert.ok([0, 3].includes(again.code), again.stderr);
      const second = await recordLines(path.join(dir, LOG));
      const aside = /the previous one is now (\S+)/.exec(again.stderr.split('new id log')[1] ?? '')?.[1];
      assert.ok(aside, again.stderr);
      assert.deepEqual(await recordLines(aside), lines, 'the earlier lines are kept aside as they were');
      assert.equal(second.length, lines.length);
      assert.ok(second.every((l) => l.state === 'existing' && l.serviceId === undefined));
      assertLogMatches(second, sb.records());
    } finally {
      await sb.close();
    }
  });
}

// Four kills: the id log's own cases (a range acknowledged, then killed); the slow tier kills 58 times.
test('SIGKILL at 4 random moments, then resume: each stored record once in the id log, with its id', async () => {
  const random = mulberry32(1515);
  // Real time: the latency spreads the run so each SIGKILL lands mid-batch.
  const sb = await sandbox({ latencyMs: 15 });
  try {
    const dir = await tempDir();
    const { sources } = await writeGeneratedExport(dir, {
      users: 300,
      groups: 12,
      membersPerGroup: 25,
      messages: 3000,
    });
    await writeConfig(dir, {
      baseUrl: sb.url,
      sources,
      concurrency: 4,
      requestsPerMinute: 1e9,
      checkpointIntervalMs: 0,
    });
    let kills = 0;
    for (let i = 0; i < 4; i++) {
      const child = spawnCli(['import'], { cwd: dir });
      const done = collect(child);
      const target = sb.stats().requests + 1 + Math.floor(random() * 6);
      // A run that ends before the target has nothing left to kill.
      await waitFor(() => sb.stats().requests >= target || child.exitCode !== null, {
        everyMs: 2,
        what: `${target} requests, or the run's end`,
      });
      // The random moment itself: up to 12 ms after the target, not a wait for anything.
      await new Promise((r) => setTimeout(r, Math.floor(random() * 12)));
      const killed = child.kill('SIGKILL');
      const result = await done;
      if (killed && result.signal === 'SIGKILL') kills++;
    }
    const final = await runCli(['import'], { cwd: dir });
    assert.equal(final.code, 0, final.stderr);
    assert.ok(kills >= 3, `only ${kills} kills landed`);
    const lines = await recordLines(path.join(dir, LOG));
    assertLogMatches(lines, sb.records());
    // Only records the service answered already-exists for can be "existing": a created one whose line
    // was lost with the process comes back that way; none is "existing" without such an answer.
    const existing = lines.filter((l) => l.state === 'existing').length;
    const answeredExisting = Object.values(sb.stats().perEntity).reduce((n, e) => n + e.alreadyExists, 0);
    assert.ok(existing <= answeredExisting, `${existing} existing lines, ${answeredExisting} already-exists answers`);
  } finally {
    await sb.close();
  }
});

test('ids find: a Slack source id leads to its muid in the id map and to the service id in the id log', async () => {
  const sb = await sandbox();
  try {
    const dir = await tempDir();
    await writeConfig(dir, { baseUrl: sb.url, requestsPerMinute: 100000 });
    const slack = ['--preset', 'slack', '--from', path.join(PRESET_FIXTURES, 'slack')];
    const run = await runCli(['import', ...slack], { cwd: dir });
    assert.ok([0, 3].includes(run.code), run.stderr);
    const map = await readNdjson(path.join(dir, '.migrate-checkpoint.ids.ndjson'));
    const mapped = map.find((l) => l.entity === 'messages');
    const stored = sb.records().messages[mapped.id.toLowerCase()];
    assert.ok(stored, `${mapped.id} is stored`);

    for (const query of [mapped.sourceId, mapped.id.toUpperCase(), stored.id]) {
      const found = await runCli(['ids', 'find', query, '--json'], { cwd: dir });
      assert.equal(found.code, 0, found.stderr);
      const { lines } = JSON.parse(found.stdout);
      assert.deepEqual(
        lines.map((l) => [path.basename(l.file), l.entry.sourceId ?? l.entry.serviceId]),
        [
          ['.migrate-checkpoint.ids.ndjson', mapped.sourceId],
          [LOG, stored.id],
        ],
        `ids find ${query}`,
      );
    }
    const text = await runCli(['ids', 'find', mapped.id], { cwd: dir });
    assert.match(text.stdout, new RegExp(`${LOG.replaceAll('.', '\\.')}:\\d+: .*"serviceId":"${stored.id}"`));
    const none = await runCli(['ids', 'find', 'no-such-id'], { cwd: dir });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /nothing about no-such-id/);
  } finally {
    await sb.close();
  }
});
