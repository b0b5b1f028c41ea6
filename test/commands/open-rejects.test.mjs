// Open rejects stay open (issue 13, point 2): a rejected record is not "done" until it is in. A later
// run says how many are still rejected and exits 3; a reject whose cause can clear (a group's missing
// owner) is tried again by itself; one rejected for its own content waits until its line changes. A
// member of a user the export lacks is no reject: it is held (blocked) until the user is there.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { readNdjson, runCli, sandbox, tempDir, writeConfig, messageLine as message } from '../helpers.mjs';

const user = (uid, name = uid) => JSON.stringify({ uid, name });
const member = (uid) => JSON.stringify({ guid: 'g1', uid, scope: 'participant' });

/**
 * An export of 2 users, 2 groups (g2 owned by carol, whom the export lacks), 3 members (one of carol)
 * and 5 messages (one empty).
 */
async function writeExport(dir, { withCarol = false, fixedText = false } = {}) {
  const users = [user('alice'), user('bob'), ...(withCarol ? [user('carol')] : [])];
  await writeFile(path.join(dir, 'users.ndjson'), `${users.join('\n')}\n`);
  const groups = [
    { guid: 'g1', name: 'G', type: 'public' },
    { guid: 'g2', name: 'G2', type: 'public', owner: 'carol' },
  ];
  await writeFile(path.join(dir, 'groups.ndjson'), `${groups.map((g) => JSON.stringify(g)).join('\n')}\n`);
  await writeFile(
    path.join(dir, 'members.ndjson'),
    `${[member('alice'), member('bob'), member('carol')].join('\n')}\n`,
  );
  const messages = [0, 1, 2, 3].map((i) => message(i));
  messages.push(message(4, { data: { text: fixedText ? 'fixed' : '   ' } }));
  await writeFile(path.join(dir, 'messages.ndjson'), `${messages.join('\n')}\n`);
}

test('rejects stay open across runs: reported, exit 3 until fixed; fixed ones get in, and nothing twice', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await tempDir();
  await writeExport(dir);
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.ndjson' },
      members: { path: 'members.ndjson' },
      messages: { path: 'messages.ndjson' },
    },
  });
  const run = async () => {
    const r = await runCli(['import', '--json'], { cwd: dir });
    return { code: r.code, summary: JSON.parse(r.stdout), stderr: r.stderr };
  };
  const rejectsLines = async () => (await readNdjson(path.join(dir, 'migrate-rejects.ndjson'))).length;

  // Run 1: a group whose owner the export lacks, and a message with no text; carol's membership is held.
  let r = await run();
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.summary.entities.groups.rejected, 1);
  assert.equal(r.summary.entities.members.rejected, 0);
  assert.equal(r.summary.entities.members.blocked, 1);
  assert.equal(r.summary.entities.messages.rejected, 1);
  assert.equal(await rejectsLines(), 2);

  // Run 2, nothing changed: still rejected, said so, exit 3, no line written again.
  r = await run();
  assert.equal(r.code, 3, 'a run after a run with rejects is not "every record is in"');
  assert.equal(r.summary.status, 'completed-with-rejects');
  assert.equal(r.summary.totals.rejected, 2);
  assert.equal(r.summary.totals.rejectedEarlier, 2);
  assert.equal(r.summary.entities.messages.resumed, 4);
  assert.equal(await rejectsLines(), 2);
  const text = await runCli(['import'], { cwd: dir });
  assert.match(text.stdout, /2 records are still rejected from earlier runs: see .*migrate-rejects\.ndjson/);
  assert.doesNotMatch(text.stdout, /every record is in/);

  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.deepEqual(status.openRejects, { groups: 1, messages: 1 });

  // Run 3: the user is in the export now: the group is tried again by itself and gets in, and so
  // does the membership carol held back.
  await writeExport(dir, { withCarol: true });
  r = await run();
  assert.equal(r.code, 3, 'the empty message is still open');
  assert.equal(r.summary.entities.groups.imported, 1);
  assert.equal(r.summary.entities.groups.rejected, 0);
  assert.equal(r.summary.entities.members.imported, 1);
  assert.equal(r.summary.entities.members.blocked, 0);
  assert.equal(r.summary.entities.messages.rejectedEarlier, 1);

  // Run 4: the message's line is fixed: it is sent and gets in; every record is in.
  await writeExport(dir, { withCarol: true, fixedText: true });
  r = await run();
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.summary.entities.messages.imported, 1);
  assert.equal(r.summary.totals.rejected, 0);
  const after = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.deepEqual(after.openRejects, {});

  // Every record is stored once, the fixed one with its new text.
  const stored = sb.records();
  assert.equal(Object.keys(stored.messages).length, 5);
  assert.equal(stored.messages.m4.data.text, 'fixed');
  assert.equal(Object.keys(stored.members).length, 3);
  assert.equal(stored.groups.g2.owner, 'carol');
  assert.equal(await rejectsLines(), 2, 'no run wrote a line twice');
  const summaryText = (await runCli(['import'], { cwd: dir })).stdout;
  assert.match(summaryText, /every record is in/);
});

test('skips are counted by reason in the summary, --json and status', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await tempDir();
  await writeFile(path.join(dir, 'users.ndjson'), `${[user('alice'), user('bob')].join('\n')}\n`);
  const messages = [
    message(0, { receiverType: 'user', receiver: 'bob' }),
    message(1, { receiverType: 'user', receiver: 'bob', deletedAt: 1_700_000_100 }),
    message(2, { receiverType: 'user', receiver: 'bob', deleted: 'permanent' }),
    message(3, { receiverType: 'user', receiver: 'bob', deletedAt: 1_700_000_100 }),
  ];
  await writeFile(path.join(dir, 'messages.ndjson'), `${messages.join('\n')}\n`);
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    sources: { users: { path: 'users.ndjson' }, messages: { path: 'messages.ndjson' } },
  });
  const r = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual(summary.entities.messages.skippedBy, { 'soft-deleted': 2, 'permanently-deleted': 1 });
  assert.deepEqual(summary.totals.skippedBy, { 'soft-deleted': 2, 'permanently-deleted': 1 });
  const m = summary.entities.messages;
  assert.equal(m.read, m.imported + m.alreadyPresent + m.rejected + m.skipped + m.resumed);

  const table = (await runCli(['import', '--fresh'], { cwd: dir })).stdout;
  assert.match(table, /^ {2}soft-deleted +0 +2 +2$/m);
  assert.match(table, /^ {2}permanently-deleted +0 +1 +1$/m);
  const status = (await runCli(['status'], { cwd: dir })).stdout;
  assert.match(status, /3 skipped \((permanently-deleted 1, soft-deleted 2|soft-deleted 2, permanently-deleted 1)\)/);
  const rejects = await readFile(path.join(dir, 'migrate-rejects.ndjson'), 'utf8').catch(() => '');
  assert.equal(rejects, '');
});
