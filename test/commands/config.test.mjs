// Config: cosmiconfig search, environment and flags precedence, clear errors before anything is read or sent.
import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { API_KEY, fixtureWorkspace, runCli, sandbox, tempDir } from '../helpers.mjs';

const noStack = (text) => assert.doesNotMatch(text, /\n\s+at /);

test('--help lists the commands and --version prints the version', async () => {
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  for (const cmd of ['import', 'validate', 'status', 'sandbox'])
    assert.match(help.stdout, new RegExp(`\\n\\s+${cmd}\\b`));
  const version = await runCli(['--version']);
  assert.equal(version.code, 0);
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(version.stdout.trim(), pkg.version);
  const usage = await runCli(['import', '--batch-size', 'lots']);
  assert.equal(usage.code, 2);
});

test('an unknown key, wrong type, missing key or plain-http remote URL is a clear error naming the key', async () => {
  const dir = await tempDir();
  /** @type {[object, RegExp][]} */
  const cases = [
    [
      { sources: { users: { path: 'u.csv' } }, baseUrl: 'http://127.0.0.1:9', batchSzie: 10 },
      /"batchSzie" is not a known key/,
    ],
    [
      { sources: { users: { path: 'u.csv' } }, baseUrl: 'http://127.0.0.1:9', batchSize: '50' },
      /"batchSize" must be a whole number/,
    ],
    [
      { sources: { users: { path: 'u.csv' } }, baseUrl: 'http://127.0.0.1:9', batchSize: 80 },
      /"batchSize" must be at most 50/,
    ],
    [
      { sources: { users: { path: 'u.csv', colums: 1 } }, baseUrl: 'http://127.0.0.1:9' },
      /"sources\.users\.colums" is not a known key/,
    ],
    [{ sources: { user: { path: 'u.csv' } }, baseUrl: 'http://127.0.0.1:9' }, /"sources\.user" is not an entity/],
    [{ sources: { users: { path: 'u.csv' } }, baseUrl: 'http://chat.example.com' }, /plain http to chat\.example\.com/],
    [{ sources: { users: { path: 'u.csv' } } }, /set appId and region \(or baseUrl\)/],
  ];
  for (const [config, message] of cases) {
    await writeFile(path.join(dir, '.migrate.config.json'), JSON.stringify(config), { mode: 0o600 });
    const run = await runCli(['import'], { cwd: dir });
    assert.equal(run.code, 1, `${JSON.stringify(config)}: ${run.stderr}`);
    assert.match(run.stderr, message);
    noStack(run.stderr);
  }
  await writeFile(
    path.join(dir, '.migrate.config.json'),
    JSON.stringify({ baseUrl: 'http://127.0.0.1:9', sources: { users: 'u.csv' } }),
  );
  const noKey = await runCli(['import'], { cwd: dir, apiKey: '' });
  assert.equal(noKey.code, 1);
  assert.match(noKey.stderr, /apiKey is missing: set MIGRATE_API_KEY/);
});

test(
  'environment overrides the file and flags override both; ' +
    'the config is found as an rc file or a package.json key',
  async () => {
    const sb = await sandbox();
    try {
      const dir = await fixtureWorkspace('http://127.0.0.1:9');
      const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
      // The file points nowhere; the environment points at the sandbox.
      const viaEnv = await runCli(['import', '--json'], { cwd: dir, env: { MIGRATE_BASE_URL: sb.url } });
      assert.equal(viaEnv.code, 0, viaEnv.stderr);
      // A flag beats the environment: this one points nowhere, so the run must fail to connect.
      const viaFlag = await runCli(['import', '--fresh', '--retries', '0', '--base-url', 'http://127.0.0.1:9'], {
        cwd: dir,
        env: { MIGRATE_BASE_URL: sb.url },
      });
      assert.equal(viaFlag.code, 1);
      // .migraterc.json and a "migrate" key in package.json are found too.
      const { rm } = await import('node:fs/promises');
      await rm(path.join(dir, '.migrate.config.json'));
      await rm(path.join(dir, '.migrate-checkpoint.json'));
      await writeFile(path.join(dir, '.migraterc.json'), JSON.stringify({ ...config, baseUrl: sb.url }));
      const rc = await runCli(['validate', '--json'], { cwd: dir });
      assert.equal(rc.code, 0, rc.stderr);
      assert.equal(JSON.parse(rc.stdout).recordsRead, 473);
      await rm(path.join(dir, '.migraterc.json'));
      await writeFile(
        path.join(dir, 'package.json'),
        JSON.stringify({ name: 'x', migrate: { ...config, baseUrl: sb.url } }),
      );
      const pkg = await runCli(['validate', '--json'], { cwd: dir });
      assert.equal(pkg.code, 0, pkg.stderr);
    } finally {
      await sb.close();
    }
  },
);

test('a config file holding the key and readable by others draws a warning; the key is never printed', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url, { apiKey: API_KEY });
    await chmod(path.join(dir, '.migrate.config.json'), 0o644);
    const run = await runCli(['import'], { cwd: dir, apiKey: '' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /holds the apiKey and can be read by other users \(mode 644\)/);
    assert.ok(!run.stderr.includes(API_KEY) && !run.stdout.includes(API_KEY));
  } finally {
    await sb.close();
  }
});

test('status prints the checkpoint progress per entity and file', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    const none = await runCli(['status'], { cwd: dir });
    assert.match(none.stdout, /No checkpoint/);
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    const status = await runCli(['status'], { cwd: dir });
    assert.equal(status.code, 0, status.stderr);
    assert.match(
      status.stdout,
      new RegExp(
        'messages \\(done\\): 358 imported, 0 already there, 0 rejected and not in yet, ' +
          '2 skipped \\(soft-deleted 1, permanently-deleted 1\\)',
      ),
    );
    assert.match(status.stdout, /messages-archive\.csv: 60 records acknowledged/);
    const json = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
    assert.equal(json.totals.users.imported, 40);
  } finally {
    await sb.close();
  }
});

test('.migrate.config.example.json is a valid config that shows every key', async () => {
  const { gzipSync } = await import('node:zlib');
  const { mkdir, copyFile } = await import('node:fs/promises');
  const dir = await tempDir();
  await copyFile(
    new URL('../../.migrate.config.example.json', import.meta.url),
    path.join(dir, '.migrate.config.json'),
  );
  await mkdir(path.join(dir, 'export', 'messages'), { recursive: true });
  await writeFile(path.join(dir, 'export', 'users.csv'), 'user_id,display_name\nu1,Ann\nu2,Bo\n');
  await writeFile(path.join(dir, 'export', 'groups.json'), '[{"guid":"g1","name":"G","type":"public"}]');
  await writeFile(path.join(dir, 'export', 'members-1.ndjson.gz'), gzipSync('{"guid":"g1","uid":"u1"}\n'));
  await writeFile(
    path.join(dir, 'export', 'messages', 'a.ndjson'),
    '{"id":"m1","sender":"u1","receiverType":"group","receiver":"g1","sentAt":1600000000,"type":"text","body":"hi"}\n',
  );
  await writeFile(
    path.join(dir, 'export', 'archive.csv'),
    'id,sender,receiverType,receiver,sentAt,type,body,deleted\nm2,u2,user,u1,1600000001,text,"yo, there",permanent\n',
  );
  const run = await runCli(['validate', '--json'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const report = JSON.parse(run.stdout);
  assert.equal(report.recordsRead, 6);
  // m2 is deleted; m1 (2020) is older than the default retention window: both skipped.
  assert.equal(report.byEntity.messages.skipped, 2);
  const example = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  for (const key of [
    'appId',
    'region',
    'apiKey',
    'baseUrl',
    'sources',
    'checkpoint',
    'rejects',
    'batchSize',
    'concurrency',
    'requestsPerMinute',
    'retries',
    'timeoutMs',
    'importSoftDeleted',
    'preset',
    'from',
    'systemUser',
    'includeBots',
    'includeJoinLeave',
    'mediaBaseUrl',
  ]) {
    assert.ok(key in example, `example lacks ${key}`);
  }
});
