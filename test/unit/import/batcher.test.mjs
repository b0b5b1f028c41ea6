// The batch stage's contract with its sender: full batches across files, one range per file, and the
// first failure ends the sends still retrying (a split batch's other half once kept a failed run
// alive ~70 s). The sender is a collaborator the batcher is given, as STYLE.md has the core take them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FileProgress } from '../../../dist/checkpoint/file-progress.js';
import { ENTITIES } from '../../../dist/entities/index.js';
import { Batcher } from '../../../dist/pipeline/import/batcher.js';

const record = (id, file, ordinal) =>
  /** @type {any} */ ({
    entity: 'users',
    id,
    payload: { uid: id },
    source: {},
    file,
    line: ordinal + 1,
    ordinal,
    problems: [],
  });

/** A users batcher over 2 connections; `options` give the sender, the batch size and the rest. */
const usersBatcher = (options) =>
  new Batcher({ entity: ENTITIES.users, concurrency: 2, stop: new AbortController().signal, ...options });

test('records of three files fill one batch; its answer acknowledges a range in each file', async () => {
  /** @type {any[]} */
  const answers = [];
  /** @type {any} */
  const sender = { send: async (_entity, records) => ({ imported: records.length, alreadyPresent: 0, rejected: [] }) };
  const batcher = usersBatcher({
    sender,
    batchSize: 5,
    onAnswered: (a) => {
      answers.push(a);
    },
  });
  const files = [new FileProgress(), new FileProgress(), new FileProgress()];
  let sent = 0;
  for (const [f, progress] of files.entries()) {
    for (let i = 0; i < 2; i++) await batcher.offer(record(`u${f}${i}`, `f${f}`, i), progress, 0, i + 1);
    batcher.closeFile(progress, 0, 2);
  }
  await batcher.flush();
  await batcher.drain();
  for (const a of answers) sent += a.records.length;
  assert.deepEqual(
    answers.map((a) => a.records.length),
    [5, 1],
    'a full batch across files, then the rest',
  );
  assert.equal(sent, 6);
  // Every slot of every file is in a range of an answered batch (the phase acknowledges those).
  for (const a of answers) for (const r of a.ranges) r.progress.ack(r.start, r.end);
  for (const progress of files) assert.equal(progress.ackedCount(), 2);
  assert.ok(answers[0].ranges.length >= 3, 'the full batch names a range in each of the three files');
});

test('the first failure ends the sends still retrying at once, through onFailure', async () => {
  const abandon = new AbortController();
  let calls = 0;
  let answered = 0;
  /** @type {any} */
  const sender = {
    send: async () => {
      if (++calls === 1) throw new Error('the key was refused');
      // A batch in its backoff: it gives up only when told to.
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        abandon.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
      throw new Error('abandoned');
    },
  };
  const batcher = usersBatcher({
    sender,
    batchSize: 1,
    onAnswered: () => {
      answered++;
    },
    onFailure: () => abandon.abort(),
  });
  const progress = new FileProgress();
  const started = Date.now();
  await batcher.offer(record('refused', 'f', 0), progress, 0, 1);
  await batcher.offer(record('retrying', 'f', 1), progress, 1, 2);
  await batcher.drain();
  assert.ok(Date.now() - started < 5000, `drained in ${Date.now() - started} ms`);
  assert.equal(/** @type {Error} */ (batcher.failure).message, 'the key was refused');
  assert.ok(abandon.signal.aborted);
  assert.equal(answered, 0, 'nothing answered: both batches are read again on resume');
});

test('a sender told to abandon stops at its next wait: no more tries against a real sandbox', async (t) => {
  const { ImportClient } = await import('../../../dist/http/import-client.js');
  const { RateLimiter } = await import('../../../dist/http/rate-limiter.js');
  const { systemClock } = await import('../../../dist/clock.js');
  const { DEFAULT_RETRY_POLICY } = await import('../../../dist/http/retry-policy.js');
  const { BatchSender } = await import('../../../dist/pipeline/import/send-batch.js');
  const { sandbox, API_KEY } = await import('../../helpers.mjs');
  // Every request holding this user fails with 500: the sender backs off and tries again, up to 8 times.
  const sb = await sandbox({ faults: { poisonIdPattern: '^stuck$' } });
  t.after(() => sb.close());
  const client = new ImportClient({
    baseUrl: sb.url,
    apiKey: API_KEY,
    apiVersion: 'v3.0',
    connections: 1,
    timeoutMs: 5000,
    proxy: { noProxy: '' },
  });
  t.after(() => client.close());
  const abandon = new AbortController();
  /** @type {(value?: unknown) => void} */
  let backingOff = () => {};
  const waiting = new Promise((resolve) => (backingOff = resolve));
  const sender = new BatchSender({
    client,
    limiter: new RateLimiter(1e9, systemClock),
    clock: systemClock,
    policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10_000, maxDelayMs: 10_000 },
    hardStop: new AbortController().signal,
    abandon: abandon.signal,
    random: () => 0.99,
    events: { requestStarted: () => {}, retrying: () => backingOff() },
  });
  const started = Date.now();
  const sending = sender.send(ENTITIES.users, [record('stuck', 'f', 0)]);
  // Told to abandon once the 500 is answered and the sender has begun its 10 s wait before the next try.
  await waiting;
  abandon.abort();
  await assert.rejects(sending, { code: 'INTERRUPTED' });
  assert.ok(Date.now() - started < 5000, `gave up in ${Date.now() - started} ms, not after its 10 s backoff`);
  assert.equal(sb.stats().perEntity.users.requests, 1, 'no try after the abandon');
});

test('a batch whose answer is being written keeps its place: reading waits at twice the concurrency', async () => {
  let sends = 0;
  /** @type {any} */
  const sender = {
    send: async (_entity, records) => {
      sends++;
      return { imported: records.length, alreadyPresent: 0 };
    },
  };
  /** @type {(() => void)[]} */
  const writes = [];
  const batcher = usersBatcher({
    sender,
    batchSize: 1,
    // The checkpoint write of each answer, done only when the test says so.
    onAnswered: () => new Promise((resolve) => writes.push(() => resolve(undefined))),
  });
  const progress = new FileProgress();
  let offered = 0;
  const reading = (async () => {
    for (let i = 0; i < 10; i++, offered++) await batcher.offer(record(`u${i}`, 'f', i), progress, i, i + 1);
  })();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(sends, 4, 'four batches sent and answered, none written');
  assert.equal(offered, 3, 'the reader waits on the fourth');
  for (const write of writes.splice(0)) write();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(sends > 4, `sending went on once the writes were done (${sends})`);
  while (offered < 10) {
    for (const write of writes.splice(0)) write();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await reading;
  for (const write of writes.splice(0)) write();
  await batcher.drain();
  assert.equal(sends, 10);
});
