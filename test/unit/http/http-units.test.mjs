// Pure parts of the send path: the rate limiter (on a virtual clock), retry timing, response parsing,
// and checkpoint progress ranges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FileProgress } from '../../../dist/checkpoint/file-progress.js';
import { parseRecordResults } from '../../../dist/http/parse-results.js';
import { RateLimiter } from '../../../dist/http/rate-limiter.js';
import {
  backoffDelay,
  classifyStatus,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
} from '../../../dist/http/retry-policy.js';
import { virtualClock } from '../../virtual-clock.mjs';

/** The most request starts that fall in any 60-second window. */
function maxInWindow(starts) {
  let max = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[i] - starts[j] >= 60_000) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

test('the limiter starts at most requestsPerMinute requests in any 60 s window, and gets close to it', async () => {
  const clock = virtualClock(1_000_000);
  const limiter = new RateLimiter(120, clock);
  const starts = [];
  for (let i = 0; i < 600; i++) {
    await limiter.acquire();
    starts.push(clock.now());
  }
  assert.ok(maxInWindow(starts) <= 120, `max ${maxInWindow(starts)} in a window`);
  const perMinute = ((starts.length - 1) / (starts.at(-1) - starts[0])) * 60_000;
  assert.ok(perMinute >= 0.97 * 120, `achieved ${perMinute.toFixed(1)}/min`);
});

test('a 429 cuts the rate and pauses until Retry-After; quiet success brings it back up to the ceiling', async () => {
  const clock = virtualClock(1_000_000);
  const limiter = new RateLimiter(600, clock);
  await limiter.acquire();
  limiter.observe({ status: 429, retryAfterMs: 5000 });
  assert.ok(limiter.currentRate < 600);
  const before = clock.now();
  await limiter.acquire();
  assert.ok(clock.now() - before >= 5000, 'paused for Retry-After');
  for (let i = 0; i < 200; i++) {
    clock.advance(2000);
    limiter.observe({ status: 200 });
  }
  assert.equal(limiter.currentRate, 600);
  // A lower X-Rate-Limit from the service lowers the ceiling of a configured rate.
  limiter.observe({ status: 200, limit: 300 });
  assert.equal(limiter.currentRate, 300);
});

test('"auto" starts at the documented 60 a minute and learns the limit from X-Rate-Limit', async () => {
  const clock = virtualClock(1_000_000);
  const limiter = new RateLimiter('auto', clock);
  assert.equal(limiter.currentRate, 60);
  limiter.observe({ status: 200, limit: 1200, remaining: 1100 });
  assert.ok(limiter.currentRate >= 600 && limiter.currentRate <= 1200);
  for (let i = 0; i < 50; i++) {
    clock.advance(2000);
    limiter.observe({ status: 200, limit: 1200 });
  }
  assert.equal(limiter.currentRate, 1200);
});

test('backoff is exponential with full jitter, capped, and never shorter than the server asked', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, retries: 8, baseDelayMs: 500, maxDelayMs: 30_000 };
  assert.equal(
    backoffDelay(policy, 0, 0, () => 0.999),
    499,
  );
  assert.equal(
    backoffDelay(policy, 3, 0, () => 0.5),
    2000,
  );
  assert.equal(
    backoffDelay(policy, 20, 0, () => 0.999),
    29_970,
  );
  assert.equal(
    backoffDelay(policy, 0, 7000, () => 0.1),
    7000,
  );
  assert.equal(parseRetryAfter('3', 0), 3000);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4000), 6000);
  assert.equal(parseRetryAfter('soon', 0), undefined);
});

test('record results are read from both documented shapes, matching messages by muid when keyed otherwise', () => {
  const flat = {
    data: {
      u1: { success: true, data: { uid: 'u1' } },
      u2: { success: false, error: { code: 'ERR_UID_ALREADY_EXISTS', message: 'exists' } },
    },
  };
  const r1 = parseRecordResults(JSON.stringify(flat), ['u1', 'u2', 'u3'], 'uid');
  assert.deepEqual(r1.get('u1'), { success: true });
  assert.equal(r1.get('u2').code, 'ERR_UID_ALREADY_EXISTS');
  assert.equal(r1.has('u3'), false, 'no result means no verdict');
  const nested = {
    data: {
      data: {
        1000001: { success: true, data: { id: '1000001', muid: 'M-1' } },
        1000002: { success: false, muid: 'm-2', error: { code: 'ERR_EMPTY_MESSAGE_TEXT', message: 'empty' } },
      },
    },
  };
  const r2 = parseRecordResults(JSON.stringify(nested), ['M-1', 'm-2'], 'muid');
  assert.deepEqual(r2.get('M-1'), { success: true, serviceId: '1000001' });
  assert.equal(r2.get('m-2').code, 'ERR_EMPTY_MESSAGE_TEXT');
  // The service lower-cases ids: a result keyed "bob" answers the record sent as "Bob".
  assert.deepEqual(
    parseRecordResults(JSON.stringify({ data: { bob: { success: true } } }), ['Bob'], 'uid').get('Bob'),
    { success: true },
  );
});

test('progress: out-of-order acknowledgements raise the watermark only where they join it', () => {
  const p = new FileProgress();
  p.ack(50, 100);
  p.ack(150, 200);
  assert.equal(p.data.watermark, 0);
  assert.equal(p.isAcked(10), false);
  assert.equal(p.isAcked(60), true);
  assert.equal(p.isAcked(120), false);
  p.ack(0, 50);
  assert.equal(p.data.watermark, 100);
  assert.deepEqual(p.data.acked, [[150, 200]]);
  p.ack(100, 150);
  assert.equal(p.data.watermark, 200);
  assert.deepEqual(p.data.acked, []);
  assert.equal(p.ackedCount(), 200);
});

test('the retry policy is data: statuses classified from its lists, and a changed list changes the answer', () => {
  const kinds = [200, 400, 401, 403, 404, 408, 413, 429, 500, 502, 503, 599].map((s) =>
    classifyStatus(DEFAULT_RETRY_POLICY, s),
  );
  assert.deepEqual(kinds, [
    'refused',
    'refused',
    'auth',
    'auth',
    'refused',
    'server-error',
    'refused',
    'rate-limited',
    'server-error',
    'server-error',
    'server-error',
    'server-error',
  ]);
  const strict = { ...DEFAULT_RETRY_POLICY, serverErrorStatuses: [], rateLimitStatuses: [429, 420] };
  assert.equal(classifyStatus(strict, 408), 'refused');
  assert.equal(classifyStatus(strict, 420), 'rate-limited');
});
