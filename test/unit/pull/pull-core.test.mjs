// The pull's core against real files: the journal survives a torn line, a resumed file is cut back to
// what was committed, a delta drops what an earlier pull wrote, and the source client keeps the
// credentials on their origin and names the variables when they are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { appendFile, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PullJournal, JOURNAL_FILE } from '../../../dist/pipeline/pull/pull-journal.js';
import { OutputFile } from '../../../dist/pipeline/pull/output-file.js';
import { PullSession } from '../../../dist/pipeline/pull/pull-context.js';
import { SourceClient } from '../../../dist/http/source-client.js';
import { systemClock } from '../../../dist/clock.js';
import { RateLimiter } from '../../../dist/http/rate-limiter.js';
import { DEFAULT_RETRY_POLICY } from '../../../dist/http/retry-policy.js';
import { silentEvents } from '../../../dist/pipeline/events.js';
import { startFake } from '../../fakes/helpers.mjs';
import { runCli, sandbox, tempDir, writeConfig } from '../../helpers.mjs';

const layout = { json: { head: '{"channel":{"id":"c1"},"messages":[', tail: ']}' } };
/** @param {number} i */
const message = (i) => ({ id: `m${i}`, ts: 1_000_000 + i * 1000 });
/** @typedef {{ id: string, ts: number }} Message */
/** @type {import('../../../dist/systems/shared/pull-types.js').StreamSpec} */
const messagesSpec = {
  id: 'messages:c1',
  file: 'messages/c1.json',
  layout,
  entity: 'messages',
  channel: 'c1',
  itemKey: (m) => /** @type {Message} */ (m).id,
  itemTimeMs: (m) => /** @type {Message} */ (m).ts,
};

/**
 * A session over `journal` writing into `dir`/`run`, with the given delta.
 * @param {import('../../../dist/systems/shared/pull-types.js').PullSince} [since]
 */
function session(journal, dir, since = { kind: 'full' }) {
  const stop = new AbortController().signal;
  const options = { journal, runDir: path.join(dir, 'run'), events: silentEvents, stop, since };
  return new PullSession({ ...options, http: undefined, concurrency: 1, facts: {}, options: {} });
}

/** Pages of three messages from `from`, `pages` of them. */
const pager = (from, pages, fetched) => async (cursor) => {
  const page = cursor ?? 0;
  fetched.push(page);
  const items = [0, 1, 2].map((k) => message(from + page * 3 + k));
  /** @type {import('../../../dist/systems/shared/pull-types.js').Page<number>} */
  const answer = { items, next: page + 1 < pages ? page + 1 : undefined, remember: [[`page:${page}`, page]] };
  return answer;
};

test('a resumed stream starts at its journalled cursor and its file holds every item once', async () => {
  const dir = await tempDir();
  const file = path.join(dir, JOURNAL_FILE);
  let journal = await PullJournal.open(file);
  await journal.beginRun({ id: 'run', kind: 'full', startedAt: 1, source: 'sendbird' });
  const fetched = [];
  const stopAfter = async (cursor) => {
    if (cursor === 2) throw new Error('killed');
    return pager(0, 4, fetched)(cursor);
  };
  await assert.rejects(session(journal, dir).pages(messagesSpec, stopAfter), /killed/);
  await journal.close();
  // A kill mid-append: a page's bytes beyond the committed length, and half a journal line.
  await appendFile(path.join(dir, 'run', 'messages', 'c1.json.partial'), ',\n{"id":"torn"');
  await appendFile(file, '{"t":"page","s":"messages:c1","fi');
  journal = await PullJournal.open(file);
  const again = [];
  const result = await session(journal, dir).pages(messagesSpec, pager(0, 4, again));
  assert.deepEqual(fetched, [0, 1]);
  assert.deepEqual(again, [2, 3], 'only the pages not journalled are fetched again');
  assert.equal(result.written, 12);
  const doc = JSON.parse(await readFile(path.join(dir, 'run', 'messages', 'c1.json'), 'utf8'));
  assert.deepEqual(
    doc.messages.map((m) => m.id),
    Array.from({ length: 12 }, (_, i) => `m${i}`),
  );
  assert.deepEqual((await readdir(path.join(dir, 'run', 'messages'))).sort(), ['c1.json']);
  assert.equal(session(journal, dir).remembered('page:').length, 4);
  // The journal's text ends on a whole line: the torn one was cut away before appending.
  assert.ok((await readFile(file, 'utf8')).split('\n').every((l) => l === '' || JSON.parse(l)));
  await journal.close();
});

test('a stream already done is not fetched again', async () => {
  const dir = await tempDir();
  const journal = await PullJournal.open(path.join(dir, JOURNAL_FILE));
  await journal.beginRun({ id: 'run', kind: 'full', startedAt: 1, source: 'sendbird' });
  await session(journal, dir).pages(messagesSpec, pager(0, 2, []));
  const fetched = [];
  const result = await session(journal, dir).pages(messagesSpec, pager(0, 2, fetched));
  assert.deepEqual(fetched, []);
  assert.equal(result.resumedDone, true);
  await journal.close();
});

test('a delta leaves out messages an earlier pull wrote and those before the cutoff; no empty file', async () => {
  const dir = await tempDir();
  const file = path.join(dir, JOURNAL_FILE);
  let journal = await PullJournal.open(file);
  await journal.beginRun({ id: 'run', kind: 'full', startedAt: 1, source: 'sendbird' });
  await session(journal, dir).pages(messagesSpec, pager(0, 2, []));
  await journal.endRun(2);
  await journal.close();
  journal = await PullJournal.open(file);
  assert.equal(journal.channels.get('c1').newestMs, message(5).ts);
  await journal.beginRun({ id: 'delta', kind: 'delta', startedAt: 3, source: 'sendbird' });
  /** @type {import('../../../dist/systems/shared/pull-types.js').PullSince} */
  const since = { kind: 'delta', mode: 'time', cutoffMs: () => message(3).ts, listCutoffMs: 0 };
  // The source answers from the cutoff: m3..m5 again (the lookback), then two new ones.
  const answer = async () => ({ items: [3, 4, 5, 6, 7].map(message) });
  const s = session(journal, dir, since);
  await s.pages({ ...messagesSpec, id: 'messages:c1:delta', file: 'delta/c1.json' }, answer);
  const doc = JSON.parse(await readFile(path.join(dir, 'run', 'delta', 'c1.json'), 'utf8'));
  assert.deepEqual(
    doc.messages.map((m) => m.id),
    ['m6', 'm7'],
  );
  assert.equal(s.counts.messages.skipped, 3);
  const old = async () => ({ items: [0, 1].map(message) });
  await s.pages({ ...messagesSpec, id: 'messages:c1:old', file: 'delta/old.json' }, old);
  await assert.rejects(readFile(path.join(dir, 'run', 'delta', 'old.json')), { code: 'ENOENT' });
  await journal.close();
});

test('an output file resumed with bytes past its committed length is cut back', async () => {
  const dir = await tempDir();
  const target = path.join(dir, 'users.json');
  const out = await OutputFile.resume(target, { json: { head: '{"users":[', tail: ']}' } }, 0, 0);
  const bytes = await out.append([{ id: 'a' }]);
  await out.close();
  await writeFile(
    `${target}.partial`,
    `${await readFile(`${target}.partial`, 'utf8')},\n{"id":"half of a long record that was never journalled`,
  );
  const resumed = await OutputFile.resume(target, { json: { head: '{"users":[', tail: ']}' } }, bytes, 1);
  await resumed.append([{ id: 'b' }]);
  await resumed.finish(true);
  assert.deepEqual(JSON.parse(await readFile(target, 'utf8')), { users: [{ id: 'a' }, { id: 'b' }] });
});

/** A real server: `/page` links to another origin, `/refused` answers 401, `/ok` echoes the auth header. */
async function server() {
  const srv = createServer((req, res) => {
    if (req.url === '/refused') return res.writeHead(401).end('{"message":"bad token"}');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ auth: req.headers['api-token'], next: 'http://other.invalid:1/page' }));
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
  return { srv, url: `http://127.0.0.1:${port}` };
}

function client(url) {
  return new SourceClient({
    source: 'sendbird',
    baseUrl: url,
    headers: { 'Api-Token': 'tok_secret_123456' },
    authHint: 'check SENDBIRD_API_TOKEN and SENDBIRD_APP_ID',
    connections: 1,
    timeoutMs: 5000,
    limiter: new RateLimiter(6000, systemClock),
    policy: { ...DEFAULT_RETRY_POLICY, retries: 1 },
    clock: systemClock,
    stop: new AbortController().signal,
  });
}

test('the source client keeps its credentials on their origin and names the variables when refused', async () => {
  const { srv, url } = await server();
  const http = client(url);
  try {
    const body = /** @type {{ auth: string, next: string }} */ (await http.get('/ok'));
    assert.equal(body.auth, 'tok_secret_123456');
    await assert.rejects(http.get(body.next), (/** @type {any} */ err) => {
      assert.equal(err.code, 'SOURCE_OTHER_ORIGIN');
      return true;
    });
    await assert.rejects(http.get('/refused'), (/** @type {any} */ err) => {
      assert.equal(err.code, 'SOURCE_CREDENTIALS_REFUSED');
      assert.match(err.hint, /SENDBIRD_API_TOKEN/);
      assert.doesNotMatch(`${err.message} ${err.hint}`, /tok_secret/);
      return true;
    });
  } finally {
    await http.close();
    srv.close();
  }
});

test("a pull's summary counts users, groups and members as the import of its folder reads them", async (t) => {
  const box = await sandbox();
  t.after(() => box.close());
  for (const source of /** @type {const} */ (['sendbird', 'slack', 'twilio', 'discord', 'stream'])) {
    const fake = await startFake(t, source, { world: { users: 10, channels: 6, messages: 40, seed: 3 } });
    const dir = await tempDir(`cm-pull-counts-${source}-`);
    const args = ['pull', source, '--out', 'out', '--base-url', fake.url, '--source-requests-per-minute', '60000'];
    const pulled = await runCli(args, { cwd: dir, env: fake.env });
    assert.equal(pulled.code, 0, pulled.stderr);
    const written = Object.fromEntries(
      [...pulled.stdout.matchAll(/^ {2}(users|groups|members) +(\d+) written/gm)].map(([, e, n]) => [e, Number(n)]),
    );
    await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 1e9, checkpoint: `${source}.checkpoint.json` });
    const imported = await runCli(['import', '--preset', source, '--from', 'out', '--json'], { cwd: dir });
    const { entities } = JSON.parse(imported.stdout);
    const read = { users: entities.users.read, groups: entities.groups.read, members: entities.members.read };
    assert.deepEqual(written, read, `${source}: ${pulled.stdout}`);
  }
});
