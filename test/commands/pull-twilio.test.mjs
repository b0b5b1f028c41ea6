// pull twilio against its fake (in this process), then import and verify against the ordinary sandbox:
// what is Twilio's own. Every record once through its pages (a base URL with its /v1); `--since auto`
// sends exactly what is new; a refused secret (HTTP Basic) named and never printed; media carried from
// the Media Content Service after the temporary links expired. The pull core's SIGKILL and 429 storm:
// test/process/pull.e2e.test.mjs and test/commands/pull-sendbird.test.mjs.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { manualClock, pullStoppedThenResumed, startFake as startSourceFake } from '../fakes/helpers.mjs';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { AWS_ENV, BUCKET, sha256, startBucket } from '../media-servers.mjs';

/** @param {Omit<import('../fakes/dist/index.js').FakeServerOptions, 'source'>} [options] */
const startFake = (t, options = {}) => startSourceFake(t, 'twilio', options);

/** Runs `pull twilio` to its end against the fake, in `out`'s parent (where its run log goes). */
function pull(fake, out, args = [], env = fake.env) {
  return runCli(['pull', 'twilio', '--out', out, '--base-url', fake.url, ...args], { env, cwd: path.dirname(out) });
}

/** Every item of every file the pulls wrote, by list key, with the file it came from. */
async function pulledItems(out) {
  const items = { users: [], conversations: [], participants: [], messages: [] };
  const walk = async (dir) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.json')) {
        const doc = JSON.parse(await readFile(p, 'utf8'));
        for (const key of Object.keys(items)) for (const item of doc[key] ?? []) items[key].push({ ...item, file: p });
      }
    }
  };
  await walk(out);
  return items;
}

/** The messages paths' request counts from the fake's stats (every page of one conversation shares its path). */
const messageRequests = (stats) => Object.entries(stats.byPath).filter(([p]) => p.endsWith('/Messages'));
const total = (pairs) => pairs.reduce((n, [, c]) => n + c, 0);

/** The world's messages, as `/__fake/world` counts them. */
async function worldMessages(fake) {
  return (await fake.describe()).messages;
}

/** `import --json` of `out` with the twilio preset into `box`; the summary. */
async function importPull(box, dir, out, extra = {}, env = {}) {
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000, preset: 'twilio', from: out, ...extra });
  const r = await runCli(['import', '--json'], { cwd: dir, env });
  assert.ok(r.code === 0, `import exit ${r.code}\n${r.stderr}\n${r.stdout}`);
  return JSON.parse(r.stdout);
}

test('pull twilio, import, verify: every record once; --since auto sends exactly the new ones', async (t) => {
  const fake = await startFake(t, { world: { users: 20, channels: 6, messages: 700, seed: 7 } });
  const out = path.join(await tempDir('cm-pull-twilio-'), 'pulled');
  // The base URL as Twilio's pages write it, with its version.
  const v1 = { ...fake, url: `${fake.url}/v1` };
  const first = await pull(v1, out);
  assert.equal(first.code, 0, first.stderr);
  const items = await pulledItems(out);
  const sids = items.messages.map((m) => m.sid);
  assert.equal(new Set(sids).size, sids.length, 'no message written twice');
  assert.equal(sids.length, await worldMessages(fake), 'every message of the fake pulled');
  assert.ok(
    items.messages.some((m) => m.media?.length > 0),
    'the world has media',
  );
  for (const m of items.messages.filter((x) => x.media))
    for (const media of m.media)
      assert.match(media.links.content, new RegExp(`^${fake.url}/v1/Services/IS\\w+/Media/ME\\w+/Content$`));

  const box = await sandbox();
  t.after(() => box.close());
  const dir = await tempDir('cm-pull-twilio-ws-');
  const summary = await importPull(box, dir, out);
  const e = summary.entities;
  for (const entity of ['users', 'groups', 'members', 'messages']) {
    assert.equal(e[entity].rejected, 0, `${entity} rejected`);
    assert.equal(e[entity].imported + e[entity].skipped, e[entity].read, `${entity}: every record accounted for`);
  }
  const records = box.records();
  assert.equal(Object.keys(records.users).length, items.users.length, 'every user once');
  // One record a media item (the body on the first), one for a message without media.
  const expected = items.messages.reduce((n, m) => n + Math.max(1, m.media?.length ?? 0), 0);
  assert.equal(e.messages.read, expected, 'every message pulled read once');
  assert.equal(Object.keys(records.messages).length, expected - e.messages.skipped, 'every message once');
  const verified = await runCli(['verify'], { cwd: dir });
  assert.equal(verified.code, 0, `verify\n${verified.stdout}\n${verified.stderr}`);

  // New messages arrive while the migration is rehearsed; the nightly delta pulls just those.
  const channel = items.conversations.find((c) => c.unique_name)?.unique_name;
  const sender = items.participants.find(
    (p) => p.conversation_sid === items.conversations.find((c) => c.unique_name === channel).sid,
  ).identity;
  for (const text of ['late one', 'late two', 'late three'])
    await fake.post('/__fake/messages', { channelId: channel, senderId: sender, text });
  const before = await fake.stats();
  const delta = await pull(v1, out, ['--since', 'auto']);
  assert.equal(delta.code, 0, delta.stderr);
  const after = await fake.stats();
  const conversations = items.conversations.length;
  assert.equal(
    total(messageRequests(after)) - total(messageRequests(before)),
    conversations,
    'one messages page a conversation',
  );
  const deltaSummary = await importPull(box, dir, out);
  assert.equal(deltaSummary.entities.messages.imported, 3, 'exactly the new messages sent');
  for (const entity of ['users', 'groups', 'members'])
    assert.equal(deltaSummary.entities[entity].imported, 0, `${entity}: nothing new`);
  assert.equal(deltaSummary.entities.messages.rejected, 0);
  const texts = Object.values(box.records().messages).map((m) => m.data?.text);
  for (const text of ['late one', 'late two', 'late three'])
    assert.equal(texts.filter((x) => x === text).length, 1, text);

  // Nothing new: one page a conversation again, and no file written.
  const quiet = await fake.stats();
  const again = await pull(v1, out, ['--since', 'auto']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(total(messageRequests(await fake.stats())) - total(messageRequests(quiet)), conversations);
  assert.match(again.stdout, /0 files/);
});

test('pull twilio stopped mid-way resumes: its page tokens from the journal, no page asked twice', async (t) => {
  const fake = await startFake(t, { world: { users: 20, channels: 6, messages: 3000 } });
  const root = await tempDir('cm-pull-twilio-resume-');
  const pull = (out) =>
    runCli(['pull', 'twilio', '--out', out, '--base-url', fake.url, '--source-concurrency', '1'], {
      cwd: root,
      env: fake.env,
    });
  const { extra } = await pullStoppedThenResumed(fake, pull);
  // The refused page, and one whose answer came as the run stopped.
  assert.ok(extra(/\/(Messages|Participants|Users|Conversations)$/) <= 2, 'pages asked again');
  const sids = (await pulledItems(path.join(root, 'out'))).messages.map((m) => m.sid);
  assert.equal(new Set(sids).size, sids.length, 'no message written twice');
  assert.equal(sids.length, await worldMessages(fake));
});

test('pull twilio with a wrong secret: stops at once naming the variables, the secret printed nowhere', async (t) => {
  const fake = await startFake(t, { world: { users: 5, channels: 2, messages: 50 } });
  const root = await tempDir('cm-pull-twilio-auth-');
  const out = path.join(root, 'pulled');
  const WRONG = 'wrong_secret_5a1f9e3c7b2d';
  const r = await pull(fake, out, [], { ...fake.env, TWILIO_API_SECRET: WRONG });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /twilio refused the credentials \(HTTP 401\)/);
  assert.match(r.stderr, /TWILIO_API_SECRET/);
  const basic = Buffer.from(`${fake.env.TWILIO_API_KEY}:${WRONG}`).toString('base64');
  const seen = [r.stdout, r.stderr];
  const files = async (dir) => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await files(p);
      else seen.push(await readFile(p, 'utf8'));
    }
  };
  await files(root);
  assert.ok(
    (await readdir(root)).some((name) => name.endsWith('.runs.ndjson')),
    'the run log, beside the pull, is among the files read',
  );
  for (const text of seen) {
    assert.ok(!text.includes(WRONG), 'the secret is never written');
    assert.ok(!text.includes(basic), 'nor its Basic form');
  }
  assert.equal((await fake.stats()).requests, 1, 'stopped at the first refusal');

  const missing = await pull(fake, out, [], { TWILIO_ACCOUNT_SID: fake.env.TWILIO_ACCOUNT_SID, TWILIO_API_KEY: 'SKx' });
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /TWILIO_API_SECRET/);
});

test('pull twilio, import with media: carried from the MCS after the temporary links expired', async (t) => {
  // The temporary links live a minute of the fake's clock, which the test moves on instead of sleeping.
  const clock = manualClock();
  const world = { users: 8, channels: 3, messages: 300, seed: 3 };
  const fake = await startFake(t, { world, now: clock.now, linkTtlMs: 60_000 });
  const out = path.join(await tempDir('cm-pull-twilio-media-'), 'pulled');
  const r = await pull(fake, out);
  assert.equal(r.code, 0, r.stderr);
  const media = (await pulledItems(out)).messages.flatMap((m) => m.media ?? []);
  assert.ok(media.length > 0, 'the world has media');
  // What a script that saved Twilio's temporary links would hold: expired by import time.
  const auth = `Basic ${Buffer.from(`${fake.env.TWILIO_API_KEY}:${fake.env.TWILIO_API_SECRET}`).toString('base64')}`;
  /** @type {any} */
  const resource = await (
    await fetch(media[0].links.content.replace(/\/Content$/, ''), { headers: { authorization: auth } })
  ).json();
  const temporary = resource.links.content_direct_temporary;
  assert.equal((await fetch(temporary)).status, 200, 'fresh, the temporary link works');
  clock.advance(61_000);
  assert.equal((await fetch(temporary)).status, 403, 'expired, it does not');

  const bucket = await startBucket();
  t.after(() => bucket.close());
  const box = await sandbox();
  t.after(() => box.close());
  const dir = await tempDir('cm-pull-twilio-media-ws-');
  const PUBLIC = 'https://media.example.test';
  const host = new URL(fake.url).hostname;
  const summary = await importPull(
    box,
    dir,
    out,
    {
      media: {
        bucket: BUCKET,
        endpoint: bucket.endpoint,
        forcePathStyle: true,
        publicBaseUrl: PUBLIC,
        allowPrivateHosts: [host],
        hosts: { [host]: { basic: { userEnv: 'TWILIO_API_KEY', passwordEnv: 'TWILIO_API_SECRET' } } },
      },
    },
    { ...AWS_ENV, ...fake.env },
  );
  assert.equal(summary.entities.messages.rejected, 0);
  const objects = await bucket.objects();
  const distinct = new Set(media.map((m) => m.sid));
  assert.equal(objects.size, distinct.size, 'one object per media');
  for (const [key, bytes] of objects) assert.equal(key, `media/${sha256(bytes)}`);
  const urls = Object.values(box.records().messages).flatMap((m) => (m.data?.attachments ?? []).map((a) => a.url));
  assert.ok(urls.length >= distinct.size);
  assert.ok(
    urls.every((u) => u.startsWith(`${PUBLIC}/media/`)),
    'every attachment points at the bucket',
  );
});
