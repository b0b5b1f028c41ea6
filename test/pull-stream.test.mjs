// `pull stream` (issue 27): Stream Chat's server API into the channel export v2 layout, against the
// fake (`sandbox --source stream`) and the import sandbox, every part a separate process; and the
// stream preset reading the v2 layout the pull writes (a `!members-` pair is user-to-user).
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { toVendorId } from '../dist/presets/index.js';
import { tempDir } from './helpers.mjs';
import { byId, plan, readPlans } from './presets-helpers.mjs';

const lines = (items) => `${items.map((i) => JSON.stringify(i)).join('\n')}\n`;

test('the preset reads a v2 export: a two-member !members- channel from member lines is user-to-user', async () => {
  const dir = await tempDir();
  const dm = {
    type: 'messaging',
    id: '!members-Xq3',
    cid: 'messaging:!members-Xq3',
    created_at: '2026-01-02T00:00:00Z',
  };
  const team = {
    type: 'messaging',
    id: 'team',
    cid: 'messaging:team',
    name: 'Team',
    created_at: '2026-01-02T00:00:00Z',
  };
  const user = (id) => ({ type: 'user', data: { id, name: id.toUpperCase(), created_at: '2026-01-01T00:00:00Z' } });
  const member = (c, id) => ({
    type: 'member',
    data: { user_id: id, user: { id }, cid: c.cid, created_at: '2026-01-02T00:00:01Z' },
  });
  const message = (c, id, from) => ({
    type: 'message',
    data: { id, text: `hi from ${from}`, user: { id: from }, cid: c.cid, created_at: '2026-01-03T00:00:00Z' },
  });
  await mkdir(path.join(dir, 'full', 'members'), { recursive: true });
  await writeFile(path.join(dir, 'full', 'users.ndjson'), lines([user('ann'), user('bob'), user('cy')]));
  await writeFile(
    path.join(dir, 'full', 'channels.ndjson'),
    lines([
      { type: 'channel', data: dm },
      { type: 'channel', data: team },
    ]),
  );
  // Members in their own files, after the channels, as the pull writes them; ann twice (a delta's again).
  await writeFile(
    path.join(dir, 'full', 'members', 'dm.ndjson'),
    lines([member(dm, 'ann'), member(dm, 'bob'), member(dm, 'ann')]),
  );
  await writeFile(
    path.join(dir, 'full', 'members', 'team.ndjson'),
    lines(['ann', 'bob', 'cy'].map((u) => member(team, u))),
  );
  await writeFile(
    path.join(dir, 'full', 'messages.ndjson'),
    lines([message(dm, 'm1', 'ann'), message(team, 'm2', 'cy')]),
  );
  const r = await readPlans((await plan('stream', dir)).plans);
  for (const e of ['users', 'groups', 'members', 'messages']) assert.deepEqual(r[e].problems, [], e);
  const m = byId(r.messages.sent, 'muid');
  assert.deepEqual([m.m1.receiverType, m.m1.sender, m.m1.receiver], ['user', 'ann', 'bob'], 'the pair: user-to-user');
  assert.deepEqual([m.m2.receiverType, m.m2.receiver], ['group', toVendorId('messaging:team')]);
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 1 }, 'no group for the pair');
});
