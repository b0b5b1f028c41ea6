// Full requests whatever the files (issue 14, point 1): exports of many small files imported into the
// sandbox. Batches fill across file boundaries, so every record arrives once and each phase takes
// ceil(N/50) requests (before, a batch stopped at each file's end: 17 requests for the Slack
// sample's 150 messages, one per day file).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { FIXTURES, runCli, sandbox, tempDir, writeConfig, writeManyFilesExport } from '../helpers.mjs';

const ENTITIES = ['users', 'groups', 'members', 'messages'];
const BATCH = 50;

/**
 * `import --json ...args` in a fresh folder (where `write` puts an export); the summary and sandbox stats.
 * @param {string[]} args
 * @param {{ write?: (dir: string) => Promise<{ counts: any, sources: any }> }} [options]
 */
async function importCounting(args, { write } = {}) {
  const sb = await sandbox();
  try {
    const dir = await tempDir();
    const written = write ? await write(dir) : undefined;
    await writeConfig(dir, { baseUrl: sb.url, concurrency: 2, requestsPerMinute: 1e9, sources: written?.sources });
    const r = await runCli(['import', '--json', ...args], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    return { summary: JSON.parse(r.stdout), stats: sb.stats().perEntity, counts: written?.counts };
  } finally {
    await sb.close();
  }
}

/** Each phase's requests carry 50 records but its last: ceil(N/50) requests, floor(N/50) of them full. */
function assertFullRequests(stats) {
  for (const e of ENTITIES) {
    const s = stats[e];
    const expected = { requests: Math.ceil(s.recordsReceived / BATCH), full: Math.floor(s.recordsReceived / BATCH) };
    assert.deepEqual({ requests: s.requests, full: s.fullRequests }, expected, `${e}: ${s.recordsReceived} records`);
  }
}

test('the bundled Slack sample (17 day files): 150 messages in 3 requests', async (t) => {
  const sample = path.join(FIXTURES, 'presets', 'slack');
  const { summary, stats } = await importCounting(['--preset', 'slack', '--from', sample]);
  await t.test('every message stored once', () => {
    assert.equal(summary.status, 'completed');
    assert.equal(stats.messages.stored, 150);
    assert.equal(stats.messages.recordsReceived, 150);
    assert.equal(stats.messages.alreadyExists + stats.messages.rejected, 0);
  });
  await t.test('each phase in ceil(N/50) requests, all full but its last', () => {
    assert.equal(stats.messages.requests, 3, 'messages requests');
    assertFullRequests(stats);
  });
});

test('60 small NDJSON message files (1-9 messages each): ceil(N/50) requests', async (t) => {
  const { summary, stats, counts } = await importCounting([], { write: (dir) => writeManyFilesExport(dir) });
  await t.test('every record stored once', () => {
    assert.equal(summary.status, 'completed');
    for (const e of ENTITIES) {
      assert.equal(stats[e].stored, counts[e], `${e} stored`);
      assert.equal(stats[e].alreadyExists + stats[e].rejected, 0, `${e}: none again, none refused`);
    }
    assert.ok(counts.messages > 3 * 60, `${counts.messages} messages: most files hold several`);
  });
  await t.test('each phase in ceil(N/50) requests, all full but its last', () => {
    assert.equal(stats.messages.requests, Math.ceil(counts.messages / BATCH), 'messages requests');
    assertFullRequests(stats);
  });
});
