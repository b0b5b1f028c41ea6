// The presets' pre-pass over message files, kept between runs: a run with the same files reads none
// of them again (they are garbled in their middle here, and planning still gives the same users,
// groups and id map), and a file that changed is read again.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { PRESET_FIXTURES } from '../../presets-helpers.mjs';
import { garble, paddedExport, planAndCommit } from '../../prepass-cache-helpers.mjs';
import { tempDir } from '../../helpers.mjs';

/** Writes file `rel` of the export in `from` as fixture `fixture` has it, after `edit` of its JSON. */
async function rewrite(from, fixture, rel, edit) {
  const doc = JSON.parse(await readFile(path.join(PRESET_FIXTURES, fixture, rel), 'utf8'));
  edit(doc);
  await writeFile(path.join(from, rel), JSON.stringify(doc));
}

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
  {
    preset: 'discord',
    fixture: 'discord',
    isMessageFile: (rel) => rel.endsWith('.json'),
    padAt: (text) => text.indexOf('[', text.indexOf('"messages"')) + 1,
    /** Rewrites one channel file as the fixture has it plus a message from an author no other file names. */
    async change(from) {
      await rewrite(from, 'discord', 'Test Server - Text Channels - general [910000000000000001].json', (doc) => {
        const last = doc.messages.at(-1);
        const author = { ...last.author, id: '100000000000099001', name: 'zed', nickname: 'Zed New' };
        doc.messages.push({ ...last, id: '920000000000099001', content: 'a late one', author });
      });
      return '100000000000099001';
    },
  },
  {
    preset: 'twilio',
    fixture: 'twilio/rest',
    // Every file the preset looks at: which kinds a file holds is told by its content, not its name.
    isMessageFile: (rel) => /\.(json|jsonl)$/.test(rel),
    // Users, conversations and participants pages are read again by their own inputs: garbled, those
    // would differ whatever the cache. Messages pages are read by the pre-pass alone.
    garbled: (rel) => rel.startsWith('messages-'),
    /** Rewrites one messages page as the fixture has it plus a message from an author no other file names. */
    async change(from) {
      await rewrite(from, 'twilio/rest', 'messages-a.json', (doc) => {
        const last = doc.messages.at(-1);
        doc.messages.push({ ...last, sid: `IM${'9'.repeat(32)}`, index: last.index + 1, author: 'zed', body: 'late' });
      });
      return 'zed';
    },
  },
  {
    // What `pull stream` writes: every file is kept (users, channels and members too), not only messages.
    preset: 'stream',
    fixture: 'stream-pull',
    // The delta's file holds one line: not padded, still kept.
    isMessageFile: (rel) => rel.startsWith('full-') && rel.includes('/messages/'),
    padAt: inMessageLine,
    cached: (ex) => ex.every.filter((rel) => rel.endsWith('.ndjson')).length,
    change: (from) =>
      addStreamMessage(from, 'stream-pull', 'full-20261207T200445Z/messages/livestream--channel-0001.ndjson'),
  },
  {
    // Import format, one file of users, channels, members, messages and reactions; a channel export.
    preset: 'stream',
    fixture: 'stream-ugly',
    isMessageFile: (rel) => rel === 'import.jsonl' || rel === 'replies.json',
    padAt: (text) => (text.startsWith('[') ? 1 : inMessageLine(text)),
    cached: (ex) => ex.every.filter((rel) => /\.jsonl?$/.test(rel) && rel !== 'empty.jsonl').length,
    // The garbled line of import.jsonl is a bad piece its users input names: all else is as it was.
    listed: withoutProblems,
    change: (from) => addStreamMessage(from, 'stream-ugly', 'import.jsonl'),
  },
];

/**
 * In JSON Lines, between two tokens of a message's line after the first (the layout is told from the
 * first line, which must stay short): a garbling breaks that line only.
 */
function inMessageLine(text) {
  const second = text.indexOf('\n') + 1;
  return text.indexOf('"data"', second + text.slice(second).search(/"type": ?"message"/));
}

/** Rewrites a Stream JSON Lines file as the fixture has it plus a message from a sender no file names. */
async function addStreamMessage(from, fixture, rel) {
  const lines = (await readFile(path.join(PRESET_FIXTURES, fixture, rel), 'utf8')).trimEnd().split('\n');
  const last = JSON.parse(lines.findLast((l) => /"type": ?"message"/.test(l)));
  last.data = { ...last.data, id: 'late-990001', user: { id: 'zed', name: 'Zed New' }, text: 'a late one' };
  await writeFile(path.join(from, rel), `${[...lines, JSON.stringify(last)].join('\n')}\n`);
  return 'zed';
}

function withoutProblems(listed) {
  return Object.fromEntries(Object.entries(listed).map(([k, items]) => [k, items.filter((i) => i.kind !== 'problem')]));
}

for (const c of CASES) {
  test(`${c.preset} (${c.fixture}): an unchanged message file is not read again, a changed one is`, async () => {
    const ex = await paddedExport(path.join(PRESET_FIXTURES, c.fixture), c.isMessageFile, c.padAt);
    const first = await planAndCommit(c.preset, ex.from, ex.state);
    assert.equal(first.prepared.reusedFiles, 0);
    await garble(ex.from, ex.files.filter(c.garbled ?? (() => true)));

    const second = await planAndCommit(c.preset, ex.from, ex.state);
    const cached = c.cached?.(ex) ?? ex.files.length;
    assert.equal(second.prepared.reusedFiles, cached, 'every message file came from the cache');
    assert.equal(second.idMap, first.idMap, 'the id map holds the same lines, in the same order');
    const listed = c.listed ?? ((l) => l);
    assert.deepEqual(listed(second.listed), listed(first.listed), 'users, groups and members as before');
    assert.deepEqual(second.prepared.unread, first.prepared.unread, 'files taken from the cache count as read');

    // The garbled files, read (no cache), would not give the same map: the cache is what kept it.
    const uncached = await planAndCommit(c.preset, ex.from, path.join(ex.dir, 'other'), { cache: false });
    assert.notEqual(uncached.idMap, first.idMap);

    const sender = await c.change(ex.from);
    const third = await planAndCommit(c.preset, ex.from, ex.state);
    assert.equal(third.prepared.reusedFiles, cached - 1, 'the changed file is read again');
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

test('stream: a kept file is read again when what it took from other files changed', async () => {
  const dir = await tempDir('cm-prepass-');
  const from = path.join(dir, 'export');
  await mkdir(from);
  const put = (rel, items) => writeFile(path.join(from, rel), items.map((i) => `${JSON.stringify(i)}\n`).join(''));
  const channel = (createdAt) => ({ type: 'channel', data: { id: 'ops', type: 'team', created_at: createdAt } });
  const message = (id, user, createdAt) => ({
    type: 'message',
    data: { id, cid: 'team:ops', user: { id: user, name: user }, text: 'hi', created_at: createdAt },
  });
  // `m-undated` has no time of its own: the channel's creation, else its first reaction, gives it one.
  await put('messages.jsonl', [message('m-dated', 'ana', '2025-01-06T09:00:00Z'), message('m-undated', 'bo')]);
  await put('channels.jsonl', [channel('2025-01-05T00:00:00Z')]);
  const state = path.join(dir, 'state');
  let step = 0;
  /** Plans with the cache, then without: the same id map and inputs. */
  const planBoth = async () => {
    const cached = await planAndCommit('stream', from, state);
    const read = await planAndCommit('stream', from, path.join(dir, `read-${++step}`), { cache: false });
    assert.equal(cached.idMap, read.idMap);
    assert.deepEqual(cached.listed, read.listed);
    return cached;
  };
  const first = await planBoth();
  assert.match(first.idMap, /m-undated/);

  // The channel loses its time: the undated message has none, and is skipped (no sender `bo` either).
  await put('channels.jsonl', [channel(undefined)]);
  const second = await planBoth();
  assert.equal(second.prepared.reusedFiles, 0, 'messages.jsonl is read again');
  assert.doesNotMatch(second.idMap, /m-undated/);

  // A reaction in another file gives it a time again.
  await put('reactions.jsonl', [
    {
      type: 'reaction',
      data: { message_id: 'm-undated', type: 'like', user_id: 'ana', created_at: '2025-01-07T00:00:00Z' },
    },
  ]);
  const third = await planBoth();
  assert.equal(third.prepared.reusedFiles, 1, 'channels.jsonl kept, messages.jsonl read again');
  assert.match(third.idMap, /m-undated/);
});
