// Config and usage errors a person can act on (issue 13, point 4): parse errors with line:column, every
// problem at once with did-you-mean, regions checked, usage errors exit 2, and --json always answers.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir, writeConfig } from '../helpers.mjs';

const STACK = /\n\s+at /;
// No target from the machine running the tests: each case names its own.
const NO_TARGET = { MIGRATE_BASE_URL: '', MIGRATE_APP_ID: '', MIGRATE_REGION: '' };

/** A folder with a one-user export; `config` is written as .migrate.config.json (text as is, else JSON). */
async function workspace(config) {
  const dir = await tempDir();
  await writeFile(path.join(dir, 'users.csv'), 'uid,name\nu1,Ann\n');
  if (typeof config === 'string') await writeFile(path.join(dir, '.migrate.config.json'), config, { mode: 0o600 });
  else if (config) await writeConfig(dir, config);
  return dir;
}

const run = (args, cwd, env = {}) => runCli(args, { cwd, env: { ...NO_TARGET, ...env } });

/** The one JSON document on stdout of a failed `--json` run: its `error`, checked for shape and exit code. */
function jsonError(result) {
  assert.doesNotMatch(result.stderr, STACK);
  let doc;
  try {
    doc = JSON.parse(result.stdout);
  } catch {
    assert.fail(`stdout is not one JSON document (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  assert.equal(typeof doc.error?.code, 'string', result.stdout);
  assert.equal(typeof doc.error.message, 'string');
  assert.equal(doc.error.exitCode, result.code);
  return doc.error;
}

test('a JSON config with a syntax error names the file, line:column and the reason; never a stack', async () => {
  const cases = [
    [
      '{\n  "sources": {"users": "users.csv"},\n  "batchSize": 10\n  "retries": 2\n}\n',
      /\.migrate\.config\.json:4:3: invalid JSON: expected ',' or '}' after property value/,
    ],
    ['{\n  "sources": {"users": "users.csv"},\n  "importSoftDeleted": tru\n}\n', /:3:24: invalid JSON: .*'tru'/],
    ['{\n  "sources": {"users": "users.csv"},\n}\n', /:3:1: invalid JSON: .*trailing comma/],
    ['{\n  "sources": {"users": "users.csv"\n', /:3:1: invalid JSON: .*end of the file/],
  ];
  for (const [text, message] of cases) {
    const dir = await workspace(text);
    const result = await run(['validate'], dir);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /** @type {RegExp} */ (message));
    assert.doesNotMatch(result.stderr, STACK);
  }
});

test('a YAML config with a syntax error names the file, line:column and the reason', async () => {
  const dir = await workspace();
  await writeFile(path.join(dir, '.migraterc.yaml'), 'sources:\n  users: users.csv\nbatchSize: [1, 2\nretries: 3\n');
  const result = await run(['validate'], dir);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /^error: \.migraterc\.yaml:\d+:\d+: invalid YAML: \w.+\[CONFIG_SYNTAX\]$/m);
  assert.doesNotMatch(result.stderr, STACK);
});

test('every config problem of the file and the environment is reported at once, with did-you-mean', async () => {
  const dir = await workspace({
    sources: {
      users: { pth: 'users.csv' },
      mesages: 'm.ndjson',
      messages: { path: 'm.ndjson', fromat: 'ndjson', deletion: { softFeild: 'gone' } },
    },
    batchSzie: 10,
    retires: 2,
    concurrency: 'four',
    colour: 'blue',
  });
  const result = await run(['import', '--app-id', 'x'], dir, { MIGRATE_REGION: 'mars' });
  assert.equal(result.code, 1, result.stderr);
  assert.doesNotMatch(result.stderr, STACK);
  const expected = [
    /\.migrate\.config\.json: "batchSzie" is not a known key; did you mean "batchSize"\?/,
    /\.migrate\.config\.json: "retires" is not a known key; did you mean "retries"\?/,
    /\.migrate\.config\.json: "concurrency" must be a whole number/,
    /"sources\.users\.pth" is not a known key; did you mean "path"\?/,
    /"sources\.mesages" is not an entity; did you mean "messages"\?/,
    /"sources\.messages\.fromat" is not a known key; did you mean "format"\?/,
    /"sources\.messages\.deletion\.softFeild" is not a known key; did you mean "softField"\?/,
    // Too far from any known key to guess: the known keys are listed instead.
    /\.migrate\.config\.json: "colour" is not a known key \(known: appId, region, /,
    /the environment: "region" must be one of us, eu, in, not "mars"\n/,
  ];
  for (const line of expected) assert.match(result.stderr, line);
  assert.match(result.stderr, /^error: 9 problems in the configuration: \[CONFIG_INVALID\]\n/);
  // The key is missing too: MIGRATE_API_KEY is set by the test helper, so take it away.
  const noKey = await runCli(['import', '--app-id', 'x', '--region', 'eu'], { cwd: dir, env: NO_TARGET, apiKey: '' });
  assert.match(noKey.stderr, /apiKey is missing/);
  assert.match(noKey.stderr, /"batchSzie" is not a known key/);
});

test('an unknown region is a config error naming the known ones; with a base URL, a warning', async () => {
  const dir = await workspace({ sources: { users: 'users.csv' } });
  // A flag's bad value is a usage error (exit 2, as README "Exit codes" says), naming the regions.
  const flag = await run(['import', '--app-id', 'abc', '--region', 'mars'], dir);
  assert.equal(flag.code, 2, flag.stderr);
  assert.match(flag.stderr, /option '--region <region>' argument 'mars' is invalid\. It must be one of us, eu, in\./);
  const env = await run(['validate', '--app-id', 'abc'], dir, { MIGRATE_REGION: 'mars' });
  assert.equal(env.code, 1, env.stderr);
  assert.match(env.stderr, /the environment: "region" must be one of us, eu, in, not "mars"/);
  const withUrl = await run(['validate', '--base-url', 'https://chat.example.com'], dir, { MIGRATE_REGION: 'mars' });
  assert.equal(withUrl.code, 0, withUrl.stderr);
  const unused = /warning: the environment: "region" "mars" is not a known region \(us, eu, in\); it is not used/;
  assert.match(withUrl.stderr, unused);
  const known = await run(['validate', '--app-id', 'abc', '--region', 'in'], dir);
  assert.equal(known.code, 0, known.stderr);
  assert.doesNotMatch(known.stderr, /region/);
});

test('a bad flag value is a usage error (exit 2) naming the flag; in the file, a config error (exit 1)', async () => {
  const dir = await workspace({ sources: { users: 'users.csv' }, baseUrl: 'http://127.0.0.1:9' });
  const flags = [
    ['--batch-size', '100', /--batch-size.*'100' is invalid.*at most 50/],
    ['--concurrency', '0', /--concurrency.*'0' is invalid.*at least 1/],
    ['--retries', 'x', /--retries.*'x' is invalid/],
    ['--timeout-ms', '1.5', /--timeout-ms.*'1\.5' is invalid/],
    ['--checkpoint-interval-ms', '-1', /--checkpoint-interval-ms.*'-1' is invalid/],
  ];
  for (const [flag, value, message] of flags) {
    const result = await run(['import', flag, value], dir);
    assert.equal(result.code, 2, `${flag} ${value}: ${result.stderr}`);
    assert.match(result.stderr, /** @type {RegExp} */ (message));
  }
  assert.equal((await run(['import', '--retries', '0', '--checkpoint-interval-ms', '0', '--dry-run'], dir)).code, 0);
  await writeConfig(dir, { sources: { users: 'users.csv' }, baseUrl: 'http://127.0.0.1:9', batchSize: 100 });
  const file = await run(['import'], dir);
  assert.equal(file.code, 1, file.stderr);
  assert.match(file.stderr, /\.migrate\.config\.json: "batchSize" must be at most 50/);
});

test('with --json every failure prints one JSON document with error {code, message, exitCode}', async () => {
  const dir = await workspace({ sources: { users: 'users.csv' }, baseUrl: 'http://127.0.0.1:9' });
  const usage = [
    ['import', '--json', '--batch-size', '100'],
    ['import', '--json', '--concurrency', '0'],
    ['import', '--json', '--bogus'],
    ['validate', '--json', '--max-errors', 'x'],
    ['status', '--json', '--checkpoint'],
  ];
  for (const args of usage) {
    const result = await run(args, dir);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    const error = jsonError(result);
    assert.match(error.code, /^USAGE_/);
    assert.match(result.stderr, /^error: /m, 'the human-readable error stays on stderr');
  }
  const flagError = jsonError(await run(usage[0], dir));
  assert.match(flagError.message, /--batch-size.*at most 50/);
  assert.equal(flagError.code, 'USAGE_INVALID_ARGUMENT');

  await writeConfig(dir, { sources: { users: 'users.csv' }, baseUrl: 'http://127.0.0.1:9', batchSzie: 5, retires: 1 });
  const config = await run(['import', '--json'], dir);
  assert.equal(config.code, 1, config.stderr);
  const error = jsonError(config);
  assert.equal(error.code, 'CONFIG_INVALID');
  assert.match(error.message, /"batchSzie".*\n.*"retires"/s);
  assert.equal(error.problems.length, 2);

  await writeFile(path.join(dir, '.migrate.config.json'), '{"sources": ');
  for (const cmd of ['import', 'validate', 'status']) {
    const syntax = await run([cmd, '--json'], dir);
    assert.equal(syntax.code, 1, syntax.stderr);
    assert.equal(jsonError(syntax).code, 'CONFIG_SYNTAX');
  }
});

test('validate accepts a plain-http base URL off loopback with a warning; import still refuses it', async () => {
  const dir = await workspace({ sources: { users: 'users.csv' }, baseUrl: 'http://chat.example.com' });
  const validate = await run(['validate'], dir);
  assert.equal(validate.code, 0, validate.stderr);
  assert.match(validate.stderr, /warning: "baseUrl" uses plain http to chat\.example\.com: import will refuse it/);
  const dryRun = await run(['import', '--dry-run'], dir);
  assert.equal(dryRun.code, 0, dryRun.stderr);
  const send = await run(['import'], dir);
  assert.equal(send.code, 1, send.stderr);
  assert.match(send.stderr, /plain http to chat\.example\.com.*\[CONFIG_INSECURE_URL\]/);
});
