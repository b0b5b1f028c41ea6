// The presets' pre-pass over message files, kept between runs: a run with the same files reads none
// of them again (they are garbled in their middle here, and planning still gives the same users,
// groups and id map), and a file that changed is read again.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { PRESET_FIXTURES } from '../../presets-helpers.mjs';
import { garble, paddedExport, planAndCommit } from '../../prepass-cache-helpers.mjs';

const CASES = [
  {
    preset: 'sendbird',
    fixture: 'sendbird',
    isMessageFile: (rel) => rel.startsWith('messages/'),
    padAt: (text) => text.indexOf('[', text.indexOf('"messages"')) + 1,
    /** Rewrites one file as the fixture has it plus a message from a sender no other file names. */
    async change(from) {
      const rel = 'messages/sendbird_group_channel_team.json';
      const doc = JSON.parse(await readFile(path.join(PRESET_FIXTURES, 'sendbird', rel), 'utf8'));
      doc.messages.push({
        ...doc.messages.at(-1),
        message_id: 990001,
        user: { user_id: 'zed', nickname: 'Zed New' },
        message: 'a late one',
      });
      await writeFile(path.join(from, rel), JSON.stringify(doc));
      return 'zed';
    },
  },
  {
    preset: 'slack',
    fixture: 'slack',
    isMessageFile: (rel) => /\/\d{4}-\d{2}-\d{2}\.json$/.test(rel),
    async change(from) {
      const rel = 'enrique/2016-01-14.json';
      const doc = JSON.parse(await readFile(path.join(PRESET_FIXTURES, 'slack', rel), 'utf8'));
      doc.push({ user: 'UZED00001', type: 'message', text: 'a late one', ts: '1452729999.000100' });
      await writeFile(path.join(from, rel), JSON.stringify(doc));
      return 'uzed00001';
    },
  },
];

for (const c of CASES) {
  test(`${c.preset}: an unchanged message file is not read again, a changed one is`, async () => {
    const ex = await paddedExport(path.join(PRESET_FIXTURES, c.fixture), c.isMessageFile, c.padAt);
    const first = await planAndCommit(c.preset, ex.from, ex.state);
    assert.equal(first.prepared.reusedFiles, 0);
    await garble(ex.from, ex.files);

    const second = await planAndCommit(c.preset, ex.from, ex.state);
    assert.equal(second.prepared.reusedFiles, ex.files.length, 'every message file came from the cache');
    assert.equal(second.idMap, first.idMap, 'the id map holds the same lines, in the same order');
    assert.deepEqual(second.listed, first.listed, 'users, groups and members as before');
    assert.deepEqual(second.prepared.unread, first.prepared.unread, 'files taken from the cache count as read');

    // The garbled files, read (no cache), would not give the same map: the cache is what kept it.
    const uncached = await planAndCommit(c.preset, ex.from, path.join(ex.dir, 'other'), { cache: false });
    assert.notEqual(uncached.idMap, first.idMap);

    const sender = await c.change(ex.from);
    const third = await planAndCommit(c.preset, ex.from, ex.state);
    assert.equal(third.prepared.reusedFiles, ex.files.length - 1, 'the changed file is read again');
    const users = Object.values(third.listed)
      .flat()
      .map((item) => String(item.value?.uid));
    assert.ok(
      users.some((uid) => uid.startsWith(sender)),
      `the changed file's new sender ${sender} is found`,
    );
  });
}

test('slack: a day file is read again when what the index files say of its conversation changed', async () => {
  const ex = await paddedExport(path.join(PRESET_FIXTURES, 'slack'), CASES[1].isMessageFile);
  await planAndCommit('slack', ex.from, ex.state);
  const usersFile = path.join(ex.from, 'users.json');
  const users = JSON.parse(await readFile(usersFile, 'utf8'));
  users[0].is_bot = true;
  await writeFile(usersFile, JSON.stringify(users));
  const again = await planAndCommit('slack', ex.from, ex.state);
  assert.equal(again.prepared.reusedFiles, 0, 'a new bot changes how every conversation is read');
});
