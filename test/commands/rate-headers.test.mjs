// Both spellings of the rate headers (X-Rate-Limit* and X-RateLimit-*), read by the client and sent by
// the sandbox; "auto" rate learning over each; and the apiVersion setting against a sandbox that serves
// one version only.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { ImportClient } from '../../dist/http/import-client.js';
import { startSandbox } from '../../dist/sandbox/index.js';
import { API_KEY, fixtureWorkspace, generatedWorkspace, runCli, sandbox, writeConfig } from '../helpers.mjs';

const STYLES = {
  dashed: ['x-rate-limit', 'x-rate-limit-remaining', 'x-rate-limit-reset'],
  compact: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
};
const user = (uid) => Buffer.from(JSON.stringify({ users: { [uid]: { uid, name: uid } } }));
const noProxy = { noProxy: '' };

for (const [style, names] of /** @type {Array<['dashed' | 'compact', any]>} */ (Object.entries(STYLES))) {
  test(`the sandbox sends ${style} rate headers and the client reads them, Retry-After first on a 429`, async (t) => {
    const sb = await sandbox({ requestsPerMinute: 2, rateHeaders: style });
    t.after(() => sb.close());
    const client = new ImportClient({
      baseUrl: sb.url,
      apiKey: API_KEY,
      apiVersion: 'v3.0',
      connections: 1,
      timeoutMs: 5000,
      proxy: noProxy,
    });
    t.after(() => client.close());
    const first = await client.post('users', user('u1'));
    assert.equal(first.status, 200);
    assert.deepEqual([first.rate.limit, first.rate.remaining], [2, 1]);
    assert.ok(Math.abs(first.rate.resetAt - Date.now() - 60_000) < 3000, `reset ${first.rate.resetAt}`);
    await client.post('users', user('u2'));
    const limited = await client.post('users', user('u3'));
    assert.equal(limited.status, 429);
    assert.equal(limited.rate.remaining, 0);
    assert.ok(limited.rate.retryAfterMs >= 55_000, `Retry-After ${limited.rate.retryAfterMs}`);
    // Only this spelling is on the wire.
    const res = await fetch(`${sb.url}/v3.0/data_import/users`, { method: 'POST', headers: { apikey: API_KEY } });
    const other = STYLES[style === 'dashed' ? 'compact' : 'dashed'];
    assert.deepEqual(
      names.map((n) => res.headers.has(n)),
      [true, true, true],
    );
    assert.deepEqual(
      other.map((n) => res.headers.has(n)),
      [false, false, false],
    );
  });

  test(`"auto" learns the service's rate from ${style} headers: no 429, far quicker than the start rate`, async (t) => {
    const sb = await sandbox({ requestsPerMinute: 3000, rateHeaders: style });
    t.after(() => sb.close());
    const { dir } = await generatedWorkspace(sb, { users: 100, groups: 4, membersPerGroup: 10, messages: 1000 });
    const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
    await writeConfig(dir, { ...config, requestsPerMinute: 'auto' });
    const started = Date.now();
    const run = await runCli(['import', '--json'], { cwd: dir });
    const elapsed = Date.now() - started;
    assert.equal(run.code, 0, run.stderr);
    const requests = JSON.parse(run.stdout).totals.requests;
    // Starting at 60 a minute, these requests would take a second each; learnt, 3000 a minute.
    assert.ok(requests >= 20, `requests ${requests}`);
    assert.ok(elapsed < requests * 1000 * 0.4, `${requests} requests took ${elapsed} ms`);
    assert.equal(sb.stats().rateLimited, 0);
  });
}

test('apiVersion: every request uses the configured segment (flag, environment); the default is v3.0', async (t) => {
  const v3 = await sandbox({ apiVersion: 'v3' });
  t.after(() => v3.close());
  const dir = await fixtureWorkspace(v3.url);
  const byFlag = await runCli(['import', '--json', '--api-version', 'v3'], { cwd: dir });
  assert.equal(byFlag.code, 0, byFlag.stderr);
  const stats = v3.stats();
  assert.ok(stats.requests > 0);
  assert.equal(stats.byStatus['200'], stats.requests, JSON.stringify(stats.byStatus));

  const byEnv = await runCli(['import', '--json', '--fresh'], { cwd: dir, env: { MIGRATE_API_VERSION: 'v3' } });
  assert.equal(byEnv.code, 0, byEnv.stderr);
  assert.equal(v3.stats().byStatus['200'], v3.stats().requests);

  // A sandbox serving v3.0 alone takes the default.
  const v30 = await sandbox({ apiVersion: 'v3.0' });
  t.after(() => v30.close());
  const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  await writeConfig(dir, { ...config, baseUrl: v30.url });
  const byDefault = await runCli(['import', '--json', '--fresh'], { cwd: dir });
  assert.equal(byDefault.code, 0, byDefault.stderr);
  assert.equal(v30.stats().byStatus['200'], v30.stats().requests);

  const bad = await runCli(['import', '--api-version', '3.0'], { cwd: dir });
  assert.equal(bad.code, 2, 'a bad flag value is a usage error');
  assert.match(bad.stderr, /--api-version .*'3\.0' is invalid\. It must be a version segment such as v3\.0 or v3/);
});

test('the sandbox checks its new options before listening', async () => {
  const refused = { code: 'SANDBOX_OPTIONS' };
  /** Options of the wrong shape on purpose: the sandbox must refuse them. */
  const bad = /** @type {(o: object) => any} */ ((o) => o);
  await assert.rejects(startSandbox(bad({ apiKey: API_KEY, rateHeaders: 'camel' })), refused);
  await assert.rejects(startSandbox({ apiKey: API_KEY, apiVersion: '3.0' }), refused);
  await assert.rejects(startSandbox(bad({ apiKey: API_KEY, tls: { cert: '' } })), refused);
  await assert.rejects(startSandbox(bad({ apiKey: API_KEY, tls: 'yes' })), refused);
});
