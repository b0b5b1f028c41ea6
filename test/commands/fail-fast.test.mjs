// Fail fast where retrying cannot help (issue 25, point 4): a host that does not resolve, a wrong key and
// a bad flag value stop the run at once, with words that say what to fix.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Agent } from 'undici';
import { KeyCheck } from '../../dist/http/key-check.js';
import { systemClock } from '../../dist/clock.js';
import { RateLimiter } from '../../dist/http/rate-limiter.js';
import { DEFAULT_RETRY_POLICY } from '../../dist/http/retry-policy.js';
import { retryingRequest, sendToService } from '../../dist/http/retrying-request.js';
import { FIXTURES, generatedWorkspace, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const NOWHERE = 'https://nosuchapp.api-nowhere.invalid';
/** A machine without a resolver says EAI_AGAIN rather than ENOTFOUND: either answer stops the run. */
const UNRESOLVED = /(no such host \(ENOTFOUND\)|the name lookup failed for now \(EAI_AGAIN\))/.source;

test('a wrong key stops import, verify and undo after one request: the first 401', async () => {
  const sb = await sandbox();
  try {
    // 400 users are 8 batches: at concurrency 8 they all went out before the first 401 came back.
    const { dir } = await generatedWorkspace(sb, { users: 400, groups: 2, membersPerGroup: 2, messages: 5 });
    const imported = await runCli(['import'], { cwd: dir });
    assert.equal(imported.code, 0, imported.stderr);
    const commands = [
      ['undo', '--yes', '--concurrency', '8', '--rest-requests-per-minute', '100000'],
      ['verify', '--concurrency', '8'],
      ['import', '--fresh', '--concurrency', '8'],
    ];
    for (const args of commands) {
      const before = sb.stats().requests;
      const run = await runCli(args, { cwd: dir, apiKey: 'sk_wrong_0123456789' });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /the service refused the API key \(401[^)]*\) \[REMOTE_AUTH\]/, args[0]);
      assert.equal(sb.stats().requests - before, 1, `${args[0]}: requests at the sandbox`);
    }
  } finally {
    await sb.close();
  }
});

test('import --fresh with a wrong key leaves the migration as it was: its ledger and files', async () => {
  const sb = await sandbox();
  try {
    const { dir } = await generatedWorkspace(sb, { users: 5, groups: 1, membersPerGroup: 1, messages: 2 });
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    const status = async () => JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
    const before = await status();
    const files = await readdir(dir);
    const fresh = await runCli(['import', '--fresh'], { cwd: dir, apiKey: 'sk_wrong_0123456789' });
    assert.equal(fresh.code, 1, fresh.stderr);
    assert.match(fresh.stderr, /the service refused the API key \(401[^)]*\) \[REMOTE_AUTH\]/);
    assert.doesNotMatch(fresh.stderr, /--fresh: a new/);
    assert.deepEqual((await readdir(dir)).sort(), files.sort(), 'nothing set aside');
    const after = await status();
    assert.deepEqual([after.files, after.totals], [before.files, before.totals]);
  } finally {
    await sb.close();
  }
});

test('a host that does not resolve stops import, verify and undo at once: check appId and region', async () => {
  const sb = await sandbox();
  try {
    const { dir } = await generatedWorkspace(sb, { users: 5, groups: 1, membersPerGroup: 1, messages: 2 });
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    // The same migration, as if its target had been mistyped: undo has a checkpoint to take back.
    const file = path.join(dir, '.migrate-checkpoint.json');
    const checkpoint = JSON.parse(await readFile(file, 'utf8'));
    checkpoint.target.baseUrl = NOWHERE;
    await writeFile(file, JSON.stringify(checkpoint));
    const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
    await writeConfig(dir, { ...config, baseUrl: NOWHERE });
    for (const args of [['undo', '--yes'], ['verify'], ['import', '--fresh']]) {
      const started = Date.now();
      const run = await runCli(args, { cwd: dir });
      const elapsed = Date.now() - started;
      assert.equal(run.code, 1, run.stderr);
      const named = `cannot reach nosuchapp\\.api-nowhere\\.invalid: ${UNRESOLVED}: check appId and region`;
      assert.match(run.stderr, new RegExp(`${named} \\(baseUrl\\) \\[REMOTE_HOST_NOT_FOUND\\]`), args[0]);
      assert.doesNotMatch(run.stderr, /retrying in|raise "retries"/, args[0]);
      // 8 retries with backoff took about a minute: this bound only catches that.
      assert.ok(elapsed < 15_000, `${args[0]} took ${elapsed} ms`);
    }
  } finally {
    await sb.close();
  }
});

test('a resolver that says "try again" (EAI_AGAIN) stops the request at once, and the others with it', async () => {
  // A real undici request whose name lookup answers as getaddrinfo does on a machine without a resolver.
  const lookup = (hostname, _options, callback) => {
    const error = Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), {
      code: 'EAI_AGAIN',
      syscall: 'getaddrinfo',
      hostname,
    });
    callback(error);
  };
  const dispatcher = new Agent({ connect: { lookup } });
  const host = 'abc.api-eu.cometchat.io';
  const at = {
    dispatcher,
    origin: `https://${host}`,
    prefix: '/v3/',
    host,
    route: { host },
    headers: { apikey: 'k' },
    timeoutMs: 5000,
  };
  let started = 0;
  const loop = {
    limiter: new RateLimiter(1e9, systemClock),
    policy: DEFAULT_RETRY_POLICY,
    clock: systemClock,
    stop: new AbortController().signal,
    keyCheck: new KeyCheck(),
    events: { requestStarted: () => started++ },
  };
  const request = () =>
    retryingRequest(loop, {
      subject: 'users',
      route: { host: 'abc.api-eu.cometchat.io' },
      send: (signal) => sendToService(at, { method: 'GET', path: '/v3/users' }, signal),
      judge: () => ({ done: true }),
    });
  try {
    const results = await Promise.allSettled([request(), request(), request()]);
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      assert.equal(result.reason.code, 'REMOTE_HOST_NOT_FOUND');
      assert.match(result.reason.message, /the name lookup failed for now \(EAI_AGAIN\): check appId and region/);
    }
    // The two waiting for the first answer never went out: the name is the same for every request.
    assert.equal(started, 1);
  } finally {
    await dispatcher.close();
  }
});

test('--region EU is eu; a region, format or entity outside its list exits 2 naming the list', async () => {
  const dir = await tempDir();
  await writeConfig(dir, { sources: { users: path.join(FIXTURES, 'users.csv') } });
  // The host is built from the region as the list writes it (and does not resolve: no request is made).
  const eu = await runCli(['import', '--app-id', 'nosuchapp', '--region', 'EU'], { cwd: dir });
  assert.equal(eu.code, 1, eu.stderr);
  assert.match(eu.stderr, /cannot reach nosuchapp\.api-eu\.cometchat\.io: .*\[REMOTE_HOST_NOT_FOUND\]/);
  const envRegion = await runCli(['validate', '--app-id', 'abc'], { cwd: dir, env: { MIGRATE_REGION: 'In' } });
  assert.equal(envRegion.code, 0, envRegion.stderr);
  assert.doesNotMatch(envRegion.stderr, /region/);
  /** @type {Array<[string[], RegExp]>} */
  const bad = [
    [['import', '--region', 'mars'], /'mars' is invalid\. It must be one of us, eu, in\./],
    [['init', '--region', 'mars', '--print'], /'mars' is invalid\. It must be one of us, eu, in\./],
    [['report', '--format', 'pdf'], /'pdf' is invalid\. It must be one of html, md\./],
    [['validate', '--preset', 'slak'], /'slak' is invalid\. It must be one of sendbird, stream, slack, /],
    [['init', '--entity', 'people.csv=persons', '--print'], /The entity must be one of users, groups, members/],
    [['sandbox', '--response-style', 'deep'], /'deep' is invalid\. It must be one of flat, nested\./],
  ];
  for (const [args, message] of bad) {
    const run = await runCli(args, { cwd: dir });
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
  }
  const md = await runCli(['report', '--format', 'MD', '--out', '-'], { cwd: dir });
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /^## Migration report/m);
  const init = await runCli(['init', FIXTURES, '--region', 'EU', '--app-id', 'abc', '--print'], { cwd: dir });
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stdout, /"region": "eu"/);
});
