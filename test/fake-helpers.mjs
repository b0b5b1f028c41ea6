// A live source's fake (`sandbox --source <name>`) as a child process, for the pull and sync tests.
import assert from 'node:assert/strict';
import { spawnCli, waitForOutput } from './helpers.mjs';

/**
 * Starts the fake of `source` and stops it after the test. Resolves with its first line (`url`, `env`,
 * `world`...) and its control routes: `stats()`, `world()`, `post(route, body)` (`messages`, or a path
 * from `/`), `call(method, path, body)`.
 * @param {import('node:test').TestContext} t
 * @param {string} source
 * @param {string[]} [args]
 * @param {Record<string, string>} [env]
 */
export async function startFake(t, source, args = [], env = {}) {
  const child = spawnCli(['sandbox', '--source', source, '--port', '0', '--json', ...args], { env });
  t.after(() => child.kill('SIGTERM'));
  const [line] = await waitForOutput(child, /^\{.*\}\n/m, { stream: 'stdout' });
  const info = JSON.parse(line);
  /** @returns {Promise<any>} the fake's JSON answer */
  const call = async (method, route, body) => {
    const res = await fetch(`${info.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${route}: ${res.status}`);
    return res.json();
  };
  const control = (route) => (route.startsWith('/') ? route : `/__fake/${route}`);
  return {
    ...info,
    call,
    stats: () => call('GET', '/__fake/stats'),
    world: () => call('GET', '/__fake/world'),
    /** @returns {Promise<any>} */
    post: (route, body) => call('POST', control(route), body),
  };
}
