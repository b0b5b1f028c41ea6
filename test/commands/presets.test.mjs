// End to end: the built CLI imports each preset's export into the sandbox, and every user, channel,
// membership and message of the export is accounted for: stored, or skipped with a counted reason.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { toVendorId } from '../../dist/systems/preset.js';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { PRESET_FIXTURES, zipFolder } from '../presets-helpers.mjs';

const ENTITIES = ['users', 'groups', 'members', 'messages'];
const json = async (file) => JSON.parse(await readFile(file, 'utf8'));
const fixture = (...parts) => path.join(PRESET_FIXTURES, ...parts);

/** Runs `import --preset` against a fresh sandbox; returns the summary and what the sandbox holds. */
async function importPreset(preset, from, { runs = 1 } = {}) {
  const box = await sandbox();
  try {
    const dir = await tempDir();
    await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000 });
    const summaries = [];
    for (let i = 0; i < runs; i++) {
      // A new checkpoint each time: the second run sends everything again, as a re-run from scratch would.
      const r = await runCli(
        ['import', '--preset', preset, '--from', from, '--json', '--checkpoint', `run-${i}.json`],
        { cwd: dir },
      );
      assert.equal(r.code, 0, `exit code\n${r.stderr}\n${r.stdout}`);
      summaries.push(JSON.parse(r.stdout));
    }
    return { summary: summaries[0], summaries, stats: box.stats().perEntity, records: box.records() };
  } finally {
    await box.close();
  }
}

/** The accounting every preset must pass, given what the export itself lists. */
function assertAccounted({ summary, stats, records }, expected) {
  assert.equal(summary.status, 'completed');
  for (const e of ENTITIES) {
    const c = summary.entities[e];
    assert.equal(c.rejected, 0, `${e} rejected`);
    assert.equal(c.imported + c.alreadyPresent + c.skipped, c.read, `${e}: every record read is stored or skipped`);
    assert.equal(stats[e].stored, c.imported, `${e}: the sandbox holds what was imported`);
    if (expected[e] !== undefined) assert.equal(c.read, expected[e], `${e}: as many records as the export lists`);
  }
  for (const id of expected.userIds ?? []) assert.ok(records.users[toVendorId(id)], `user ${id} stored`);
  for (const m of Object.values(records.messages)) {
    assert.ok(records.users[m.sender], `sender ${m.sender} exists`);
    assert.ok(
      (m.receiverType === 'group' ? records.groups : records.users)[m.receiver],
      `receiver ${m.receiver} exists`,
    );
  }
  for (const m of Object.values(records.members))
    assert.ok(records.groups[m.guid] && records.users[m.uid], `member ${m.memberId}`);
}

async function slackCounts(dir) {
  const users = await json(path.join(dir, 'users.json'));
  const channels = await json(path.join(dir, 'channels.json'));
  let messages = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for (const day of await readdir(path.join(dir, entry.name)))
      messages += (await json(path.join(dir, entry.name, day))).length;
  }
  return {
    groups: channels.length,
    members: channels.reduce((n, c) => n + c.members.length, 0),
    messages,
    userIds: users.map((u) => u.id),
  };
}

test('slack: the sample export, as a folder and as a zip', async () => {
  const dir = fixture('slack');
  const expected = await slackCounts(dir);
  assert.deepEqual([expected.groups, expected.members, expected.messages], [2, 8, 158]);
  const run = await importPreset('slack', dir);
  assertAccounted(run, expected);
  assert.equal(run.summary.entities.messages.skipped, 8, 'the join events, skipped by default');
  const zip = await zipFolder(dir, path.join(await tempDir(), 'slack-export.zip'));
  assertAccounted(await importPreset('slack', zip), expected);
});

test('stream: the import-format sample and channel exports (v1, v2)', async () => {
  const items = await json(fixture('stream', 'data.json'));
  const count = (type) => items.filter((i) => i.type === type).length;
  const sample = await importPreset('stream', fixture('stream', 'data.json'));
  assertAccounted(sample, {
    users: count('user'),
    groups: count('channel'),
    members: count('member'),
    messages: count('message'),
    userIds: items.filter((i) => i.type === 'user').map((i) => i.item.id),
  });
  assert.equal(sample.summary.entities.groups.skipped, 1, 'the distinct pair: user-to-user, not a group');

  const v1 = await Promise.all(['general.json', 'dm.json'].map((f) => json(fixture('stream-export', f))));
  const v2 = (await readFile(fixture('stream-export', 'launch-v2.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const exported = await importPreset('stream', fixture('stream-export'));
  assertAccounted(exported, {
    groups: v1.length + v2.filter((l) => l.type === 'channel').length,
    members: v1.reduce((n, d) => n + d.members.length, 0) + v2.filter((l) => l.type === 'member').length,
    messages: v1.reduce((n, d) => n + d.messages.length, 0) + v2.filter((l) => l.type === 'message').length,
  });
});

test('sendbird: folder and zip; a second run finds everything already there', async () => {
  const dir = fixture('sendbird');
  const users = [
    ...(await json(path.join(dir, 'users', 'active_users.json'))).active_users,
    ...(await json(path.join(dir, 'users', 'deactivated_users.json'))).deactivated_users,
  ];
  const { group_channels: groupChannels } = await json(path.join(dir, 'channels', 'group_channels.json'));
  const { open_channels: openChannels } = await json(path.join(dir, 'channels', 'open_channels.json'));
  const files = await Promise.all(
    (await readdir(path.join(dir, 'messages'))).map((f) => json(path.join(dir, 'messages', f))),
  );
  const listed = new Set([...groupChannels, ...openChannels].map((c) => c.channel_url));
  const onlyInMessages = files.map((f) => f.channel).filter((c) => !listed.has(c.channel_url) && c.members);
  const channels = [...groupChannels, ...openChannels, ...onlyInMessages];
  const people = (c) =>
    new Set(
      [...(c.members ?? []), ...(c.operators ?? [])]
        .map((m) => m.user_id)
        .concat((c.banned_list ?? []).map((b) => b.user.user_id)),
    );
  const expected = {
    groups: channels.length,
    members: channels.reduce((n, c) => n + people(c).size, 0),
    messages: files.reduce((n, f) => n + f.messages.length, 0),
    userIds: users.map((u) => u.user_id),
  };
  const run = await importPreset('sendbird', dir, { runs: 2 });
  assertAccounted(run, expected);
  const again = run.summaries[1].entities;
  for (const e of ENTITIES)
    assert.equal(again[e].alreadyPresent, run.summary.entities[e].imported, `${e}: same ids on a re-run`);
  assertAccounted(
    await importPreset('sendbird', await zipFolder(dir, path.join(await tempDir(), 'sendbird-export.zip'))),
    expected,
  );
});

test('discord: DiscordChatExporter files', async () => {
  const dir = fixture('discord');
  const files = await Promise.all(
    (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => json(path.join(dir, f))),
  );
  const authors = new Set(files.flatMap((f) => f.messages.map((m) => m.author.id)));
  assertAccounted(await importPreset('discord', dir), {
    users: authors.size,
    groups: files.length,
    messages: files.reduce((n, f) => n + f.messages.length, 0),
    userIds: [...authors],
  });
});

test('telegram: a full export and a one-chat export; validate agrees', async () => {
  const full = await json(fixture('telegram', 'full', 'result.json'));
  const chats = [...full.chats.list, ...full.left_chats.list];
  assertAccounted(await importPreset('telegram', fixture('telegram', 'full')), {
    groups: chats.length,
    messages: chats.reduce((n, c) => n + c.messages.length, 0),
    userIds: [...new Set(chats.flatMap((c) => c.messages.filter((m) => m.from_id).map((m) => m.from_id)))],
  });
  const single = await json(fixture('telegram', 'single', 'result.json'));
  assertAccounted(await importPreset('telegram', fixture('telegram', 'single', 'result.json')), {
    groups: 1,
    messages: single.messages.length,
  });

  const dir = await tempDir();
  await writeConfig(dir, { baseUrl: 'http://127.0.0.1:9' });
  const r = await runCli(['validate', '--preset', 'telegram', '--from', fixture('telegram', 'full')], { cwd: dir });
  assert.equal(r.code, 0, r.stderr + r.stdout);
});
