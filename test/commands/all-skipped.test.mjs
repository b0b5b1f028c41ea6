// A Slack export whose messages the preset reads but skips every one of (a Zulip-style export: day
// files of join events, no channels.json) never ends "Complete": every message
// read is counted with its reason, and the last line says none is in; validate and import exit 3.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const lastLine = (text) => text.trimEnd().split('\n').at(-1);

async function joinsOnly(baseUrl) {
  const dir = await tempDir('cm-all-skipped-');
  const ex = path.join(dir, 'export');
  await mkdir(path.join(ex, 'general'), { recursive: true });
  await writeFile(path.join(ex, 'users.json'), JSON.stringify([{ id: 'U1', name: 'ann', real_name: 'Ann' }]));
  const joins = [0, 1, 2, 3, 4].map((i) => ({
    type: 'message',
    subtype: 'channel_join',
    user: 'U1',
    text: '<@U1> has joined the channel',
    ts: `145283731${i}.000002`,
  }));
  await writeFile(path.join(ex, 'general', '2016-01-14.json'), JSON.stringify(joins));
  await writeConfig(dir, { preset: 'slack', from: 'export', baseUrl });
  return dir;
}

test('validate of an export whose messages are all skipped fails, saying so', async () => {
  const dir = await joinsOnly('http://127.0.0.1:9');
  const v = await runCli(['validate'], { cwd: dir });
  assert.equal(v.code, 3, v.stdout + v.stderr);
  assert.match(lastLine(v.stdout), /^FAILED: all 5 messages read would be skipped: import would send none/);
  const j = await runCli(['validate', '--json'], { cwd: dir });
  assert.equal(j.code, 3);
  const doc = JSON.parse(j.stdout);
  assert.equal(doc.ok, false);
  assert.equal(doc.allMessagesSkipped, 5);
});

test('validate --since that leaves every message out: its last line agrees with its exit code 0', async () => {
  const dir = await joinsOnly('http://127.0.0.1:9');
  const v = await runCli(['validate', '--since', '2020-01-01T00:00:00Z'], { cwd: dir });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.doesNotMatch(lastLine(v.stdout), /FAILED/);
  const j = await runCli(['validate', '--json', '--since', '2020-01-01T00:00:00Z'], { cwd: dir });
  assert.equal(JSON.parse(j.stdout).ok, true);
});

test('import of an export of skipped messages only: not "Complete", exit 3, every skip counted', async () => {
  const box = await sandbox();
  try {
    const dir = await joinsOnly(box.url);
    const r = await runCli(['import'], { cwd: dir });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /Complete|every record is in/);
    assert.match(lastLine(r.stdout), /^Not sent: all 5 messages of the export were skipped \(join-leave 5\)/);
    // status and the report read the ledger: they say the same, never "complete".
    const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout).migration;
    assert.notEqual(status.state, 'complete');
    assert.match(status.statusLine, /^Not complete: none of the 5 messages of the export is in: .*join-leave 5/);
    const again = await runCli(['import', '--json', '--fresh'], { cwd: dir });
    const summary = JSON.parse(again.stdout);
    assert.equal(summary.exitCode, 3, again.stderr);
    assert.deepEqual(summary.allMessagesSkipped, { count: 5, by: { 'join-leave': 5 } });
    assert.equal(summary.entities.messages.read, 5);
    assert.equal(summary.entities.messages.skippedBy['join-leave'], 5);
    // Included, they are sent: the same export then ends as any other.
    const withJoins = await runCli(['import', '--include-join-leave', '--fresh'], { cwd: dir });
    assert.equal(withJoins.code, 0, withJoins.stdout + withJoins.stderr);
  } finally {
    await box.close();
  }
});
