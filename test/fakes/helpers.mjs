// A live source's fake in the test's own process, for the pull and sync tests: each call owns its world
// and state, so tests start as many as they like. Build first: npm run build (it builds test/fakes too).
import assert from 'node:assert/strict';
import { startFake as startFakeServer } from './dist/index.js';

/**
 * Starts the fake of `source` and closes it after the test, failing the test if a request or an answer
 * was out of the vendor's pinned API document (`spec: false` turns the check off). Resolves with its
 * handle (`url`, `env`, `world`, the server's `stats()`...) and its control routes over HTTP, as a
 * client outside would use them: `describe()` (GET /__fake/world), `post(route, body)` (`messages`,
 * or a path from `/`), `call(method, path, body)`.
 * @param {import('node:test').TestContext} t
 * @param {import('./dist/index.js').FakeSourceName | import('./dist/index.js').FakeSource} source
 * @param {Omit<import('./dist/index.js').FakeServerOptions, 'source'>} [options]
 */
export async function startFake(t, source, options = {}) {
  const fake = await startFakeServer(source, { spec: true, ...options });
  t.after(async () => {
    await fake.close();
    // The vendor's own document is the oracle: a request or a fake's answer out of it fails the test.
    // Asserted in a hook added now, so it runs after every other (a failing hook skips the ones after
    // it, which would leave the test's other servers open).
    t.after(() => assert.deepEqual(fake.violations(), [], `out of ${fake.source}'s API document (test/vendor-specs/)`));
  });
  /** @returns {Promise<any>} the fake's JSON answer */
  const call = async (method, route, body) => {
    const res = await fetch(`${fake.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${route}: ${res.status}`);
    return res.json();
  };
  const control = (route) => (route.startsWith('/') ? route : `/__fake/${route}`);
  return {
    ...fake,
    call,
    /** @returns {Promise<any>} */
    describe: () => call('GET', '/__fake/world'),
    /** @returns {Promise<any>} */
    post: (route, body) => call('POST', control(route), body),
  };
}

/** A clock a test moves by hand: the fake's links expire when the test says, not after a sleep. */
export function manualClock(startMs = Date.now()) {
  let now = startMs;
  return {
    now: () => now,
    /** @param {number} ms */
    advance(ms) {
      now += ms;
    },
  };
}

/**
 * A source's resume, in-process: `pull(out)` (which runs one pull into `out` and resolves with the CLI's
 * result) into `clean` whole, then into `out` stopped half-way by a refused credential (as a revoked
 * token would), then into `out` again, resumed. Resolves with `extra(pattern)`: the requests to the paths
 * matching `pattern` that the stopped and the resumed pull made beyond those of the whole one. A SIGKILL's
 * own part, a torn write: test/process/pull.e2e.test.mjs.
 * @param {Pick<import('./dist/index.js').FakeServerHandle, 'stats' | 'refuseAfter'>} fake
 * @param {(out: string) => Promise<{ code: number, stdout: string, stderr: string }>} pull
 */
export async function pullStoppedThenResumed(fake, pull) {
  const count = (byPath, pattern) => Object.entries(byPath).reduce((n, [p, c]) => (pattern.test(p) ? n + c : n), 0);
  const clean = await pull('clean');
  assert.equal(clean.code, 0, clean.stderr);
  const whole = fake.stats();
  fake.refuseAfter(Math.floor(whole.requests / 2));
  const stopped = await pull('out');
  assert.equal(stopped.code, 1, `stopped by the refusal\n${stopped.stderr}`);
  fake.refuseAfter(undefined);
  const resumed = await pull('out');
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /resuming the pull/);
  const end = fake.stats();
  /** @param {RegExp} pattern */
  const extra = (pattern) => count(end.byPath, pattern) - 2 * count(whole.byPath, pattern);
  return { extra };
}
