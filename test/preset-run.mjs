// End-to-end helpers for the twilio and mattermost preset tests: the built CLI imports an export
// into a fresh sandbox with a config file naming the preset, and the summary is checked against
// what the export holds.
import assert from 'node:assert/strict';
import { runCli, sandbox, tempDir, writeConfig } from './helpers.mjs';

export const ENTITIES = ['users', 'groups', 'members', 'messages'];

/** `import --json` with `{"preset", "from"}` in .migrate.config.json; the summary and what the sandbox holds. */
export async function importWithConfig(preset, from, extra = {}) {
  const box = await sandbox();
  try {
    const dir = await tempDir();
    await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000, preset, from, ...extra });
    const r = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(r.code, 0, `exit code\n${r.stderr}\n${r.stdout}`);
    return { summary: JSON.parse(r.stdout), stats: box.stats().perEntity, records: box.records(), dir };
  } finally {
    await box.close();
  }
}

/**
 * Every record read is stored or skipped with a counted reason; `expected[entity]` gives the exact
 * counts `{read, imported, skippedBy}`; every message's sender and receiver and every member's group
 * and user exist on the sandbox.
 */
export function assertAccounted({ summary, stats, records }, expected) {
  assert.equal(summary.status, 'completed');
  for (const e of ENTITIES) {
    const c = summary.entities[e];
    assert.equal(c.rejected, 0, `${e} rejected`);
    assert.equal(c.imported + c.alreadyPresent + c.skipped, c.read, `${e}: every record read is stored or skipped`);
    assert.equal(stats[e].stored, c.imported, `${e}: the sandbox holds what was imported`);
    const want = expected[e];
    if (want === undefined) continue;
    assert.equal(c.read, want.read, `${e}: read`);
    assert.equal(c.imported, want.imported, `${e}: imported`);
    assert.deepEqual(c.skippedBy ?? {}, want.skippedBy ?? {}, `${e}: skipped by reason`);
  }
  for (const m of Object.values(records.messages)) {
    assert.ok(records.users[m.sender], `sender ${m.sender} exists`);
    const to = m.receiverType === 'group' ? records.groups : records.users;
    assert.ok(to[m.receiver], `receiver ${m.receiver} exists`);
  }
  for (const m of Object.values(records.members))
    assert.ok(records.groups[m.guid] && records.users[m.uid], `member ${m.memberId}`);
}
