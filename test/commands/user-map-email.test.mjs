// Issue 25, point 3: a user map by e-mail works with the config init writes. The e-mail a map line
// names is the one the users source's mapping produces (metadata.email from an email_address column),
// wherever it is mapped, or where userEmailField says; a JSON object map is taken; a map of another
// shape stops the run naming the file, the line and the forms that work.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const csv = (header, rows) => `${[header, ...rows].join('\n')}\n`;

/** A plain export as people have them: users with an email_address column, one channel, its members. */
async function plainExport(usersHeader = 'user_id,name,email_address') {
  const dir = await tempDir('cm-umap-');
  await mkdir(path.join(dir, 'export'));
  const files = {
    'users.csv': csv(usersHeader, [
      'emp1,Ann Lee,emp1@example.com',
      'emp2,Bob Roy,Emp2@Example.com',
      'emp3,Cy Doe,emp3@example.com',
    ]),
    'channels.csv': csv('channel_id,name', ['c1,general']),
    'channel_members.csv': csv('channel_id,user_id', ['c1,emp1', 'c1,emp2', 'c1,emp3']),
    'messages.csv': csv('message_id,channel_id,user_id,text,created_at', [
      'm1,c1,emp1,hello,2024-01-04T10:00:00Z',
      'm2,c1,emp2,hi Ann,2024-01-04T10:01:00Z',
    ]),
  };
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, 'export', name), text);
  return dir;
}

/** The app's users before the migration: bob-prod (emp2's account) and ann-prod (emp1's). */
async function seedApp(sb) {
  const dir = await tempDir('cm-umap-seed-');
  const users = [
    { uid: 'bob-prod', name: 'Bob (app)' },
    { uid: 'ann-prod', name: 'Ann (app)' },
  ];
  await writeFile(path.join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n'));
  await writeConfig(dir, { baseUrl: sb.url, requestsPerMinute: 1e9, sources: { users: { path: 'users.ndjson' } } });
  const r = await runCli(['import'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
}

/**
 * init's config, with the given keys added as a user would add them. The export's messages are from 2024:
 * init writes the default window, which would leave them out; the user clears it, as init's note says.
 */
async function initThenAdd(dir, extra) {
  const r = await runCli(['init', 'export'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const file = path.join(dir, '.migrate.config.json');
  const config = JSON.parse(await readFile(file, 'utf8'));
  await writeConfig(dir, { ...config, retentionDays: 0, ...extra });
  return config;
}

async function importInto(sb, dir) {
  const r = await runCli(['import', '--base-url', sb.url, '--requests-per-minute', '100000', '--json'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return { summary: JSON.parse(r.stdout), stderr: r.stderr };
}

test("a map line by e-mail matches init's metadata.email: no second user, every reference rewritten", async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  await seedApp(sb);
  const dir = await plainExport();
  await writeFile(path.join(dir, 'user-map.csv'), 'from,to\nemp2@example.com,bob-prod\n');
  const config = await initThenAdd(dir, { userMap: 'user-map.csv' });
  assert.equal(config.sources.users.map['metadata.email'], 'email_address', 'init maps the column as the issue says');

  const v = await runCli(['validate'], { cwd: dir });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.doesNotMatch(v.stderr, /no user of the export has/);
  const { summary, stderr } = await importInto(sb, dir);
  assert.doesNotMatch(stderr, /no user of the export has/);
  assert.equal(summary.entities.users.skippedBy.mapped, 1);
  const held = sb.records();
  assert.deepEqual(Object.keys(held.users).sort(), ['ann-prod', 'bob-prod', 'emp1', 'emp3'], 'emp2 not created');
  assert.equal(held.users['bob-prod'].name, 'Bob (app)', 'the app user is left as it was');
  assert.ok(held.members['c1_member_bob-prod'], "emp2's membership is bob-prod's");
  assert.equal(held.messages.m2.sender, 'bob-prod');
});

test('userEmailField names an e-mail field whose name does not say so; unset, the warning says where', async () => {
  const dir = await plainExport('user_id,name,login_contact');
  await writeFile(path.join(dir, 'user-map.csv'), 'from,to\nemp2@example.com,bob-prod\n');
  const config = await initThenAdd(dir, { userMap: 'user-map.csv' });
  assert.equal(config.sources.users.map['metadata.login_contact'], 'login_contact', 'kept in metadata by init');
  const unnamed = await runCli(['validate'], { cwd: dir });
  const looked = /no user of the export has an e-mail \(e-mails read from metadata\.email, email\)/;
  assert.match(unnamed.stderr, new RegExp(`warning: userMap: ${looked.source}: name the field with userEmailField`));
  await writeConfig(dir, { ...config, userMap: 'user-map.csv', userEmailField: 'metadata.login_contact' });
  const named = await runCli(['validate', '--json'], { cwd: dir });
  assert.equal(named.code, 0, named.stdout + named.stderr);
  assert.doesNotMatch(named.stderr, /userMap/);
  assert.equal(JSON.parse(named.stdout).byEntity.users.skipped, 1, 'emp2 is mapped, not sent');
  // A column not sent at all can be named too: as the export spells it.
  const { map } = config.sources.users;
  delete map['metadata.login_contact'];
  const users = { ...config.sources.users, map };
  const sources = { ...config.sources, users };
  await writeConfig(dir, { ...config, sources, userMap: 'user-map.csv', userEmailField: 'login_contact' });
  const raw = await runCli(['validate', '--json'], { cwd: dir });
  assert.equal(JSON.parse(raw.stdout).byEntity.users.skipped, 1, raw.stderr);
  // A field that no user has draws one warning naming it, not one per map line.
  await writeConfig(dir, { ...config, userMap: 'user-map.csv', userEmailField: 'metadata.mail' });
  const wrong = await runCli(['validate'], { cwd: dir });
  assert.match(
    wrong.stderr,
    /no user of the export has an e-mail \(e-mails read from metadata\.mail\): check userEmailField/,
  );
  const bad = await runCli(['validate', '--user-email-field', 'metadata..x'], { cwd: dir });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--user-email-field .*'metadata\.\.x' is invalid\. It must be a field name or dotted path/);
});

test('a JSON object map {"old-id": "app-uid"} is taken, by id and by e-mail', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  await seedApp(sb);
  const dir = await plainExport();
  const map = { emp1: 'ann-prod', 'emp2@example.com': 'bob-prod' };
  await writeFile(path.join(dir, 'user-map.json'), `${JSON.stringify(map, null, 2)}\n`);
  await initThenAdd(dir, { userMap: 'user-map.json' });
  const { summary } = await importInto(sb, dir);
  assert.equal(summary.entities.users.skippedBy.mapped, 2);
  const held = sb.records();
  assert.deepEqual(Object.keys(held.users).sort(), ['ann-prod', 'bob-prod', 'emp3']);
  assert.deepEqual(
    ['m1', 'm2'].map((m) => held.messages[m].sender),
    ['ann-prod', 'bob-prod'],
  );
});

test('a map of another shape stops before anything is sent, naming file, line and the forms that work', async () => {
  const dir = await plainExport();
  /** @type {Array<[string, string, RegExp]>} */
  const cases = [
    ['pairs.json', '[\n  ["emp1", "ann-prod"]\n]\n', /pairs\.json:2: userMap: element is an array, not an object/],
    [
      'cols.csv',
      'old,new\nemp1,ann-prod\n',
      /cols\.csv:2: userMap: not a pair of ids: an entry with "old", "new", not "from" and "to"/,
    ],
    [
      'half.ndjson',
      '{"from":"emp1","to":"ann-prod"}\n{"from":"emp2"}\n',
      /half\.ndjson:2: userMap: not a pair of ids: an entry without "to"/,
    ],
    [
      'nums.json',
      '{"emp1": "ann-prod", "emp2": true}\n',
      /nums\.json:1: userMap: not a pair of ids: the value of "emp2" is true, not an app id/,
    ],
  ];
  await initThenAdd(dir, {});
  const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  for (const [name, text, message] of cases) {
    await writeFile(path.join(dir, name), text);
    await writeConfig(dir, { ...config, userMap: name });
    const r = await runCli(['validate'], { cwd: dir });
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(r.stderr, message, name);
    assert.match(r.stderr, /\[IDMAP_INPUT_INVALID\]/, name);
    assert.match(
      r.stderr,
      /a CSV with the header from,to .*NDJSON of \{"from".*one JSON object \{"<export id>": "<app id>"/,
      name,
    );
    assert.doesNotMatch(r.stderr, /\n\s+at /, `${name}: no stack trace`);
  }
});
