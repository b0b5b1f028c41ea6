// What init writes, and what validate and import end with, say what the export holds (issue 36,
// points 3 to 5): the project's own fixtures configured without a question, the retention window
// written down when it leaves messages out, and an export of no record never an "OK".
import assert from 'node:assert/strict';
import { access, cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { FIXTURES, runCli, sandbox, tempDir } from '../helpers.mjs';

const CONFIG = '.migrate.config.json';
const lastLine = (text) => text.trimEnd().split('\n').at(-1);
const exists = (file) =>
  access(file).then(
    () => true,
    () => false,
  );

test('init on the fixtures folder: its plain files read as fixtures/.migrate.config.json reads them', async () => {
  const dir = await tempDir('cm-init-census-');
  await cp(FIXTURES, dir, { recursive: true });
  const expected = JSON.parse(await readFile(path.join(dir, CONFIG), 'utf8'));
  await rm(path.join(dir, CONFIG));
  const r = await runCli(['init', '.'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const written = JSON.parse(await readFile(path.join(dir, CONFIG), 'utf8'));
  const paths = (source) =>
    [source.path]
      .flat()
      .map((p) => p.replace(/^\.\//, ''))
      .sort();
  for (const [entity, source] of Object.entries(expected.sources)) {
    assert.deepEqual(paths(written.sources[entity]), paths(source), entity);
    assert.deepEqual(Object.keys(written.sources[entity]), ['path'], `${entity}: no map, no question`);
  }
  // The exports nested below are named as not read, not taken for the folder.
  assert.match(r.stdout, /files in folders below, not read \(a \w+ export among them\)/);
  assert.match(r.stdout, /^The config reads 40 users, 8 groups, 65 members, 360 messages/m);
  const v = await runCli(['validate', '--retention-days', '0'], { cwd: dir });
  assert.equal(v.code, 0, v.stdout);
});

test('init on an export older than the retention window writes retentionDays, saying so', async () => {
  const dir = await tempDir('cm-init-census-');
  await cp(path.join(FIXTURES, 'presets', 'slack'), path.join(dir, 'export'), { recursive: true });
  const r = await runCli(['init', 'export'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const written = JSON.parse(await readFile(path.join(dir, CONFIG), 'utf8'));
  assert.equal(written.retentionDays, 180);
  assert.match(r.stdout, /\d+ of \d+ messages were sent before \S+, beyond the service's default 180-day retention/);
  assert.match(r.stdout, /the config sets "retentionDays": 180, so import leaves them out/);
  // The decision is written: validate says what is left out and exits 0.
  const v = await runCli(['validate'], { cwd: dir });
  assert.equal(v.code, 0, v.stdout);
  assert.match(lastLine(v.stdout), /^Not sent: \d+ messages sent before \S+, beyond the 180-day retention window/);
});

test('init on a folder with no export exits 3 and writes nothing', async () => {
  const dir = await tempDir('cm-init-census-');
  await mkdir(path.join(dir, 'export'));
  await writeFile(path.join(dir, 'export', 'package.json'), '{"name": "x", "version": "1.0.0"}\n');
  const r = await runCli(['init', 'export'], { cwd: dir });
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(lastLine(r.stdout), /^Not written: /);
  assert.equal(await exists(path.join(dir, CONFIG)), false);
});

test('an export whose files hold no record: validate and import end saying so, exit 3', async () => {
  const dir = await tempDir('cm-init-census-');
  await writeFile(path.join(dir, 'messages.ndjson'), '');
  await writeFile(path.join(dir, 'users.csv'), 'uid,name\n');
  const sources = { users: { path: 'users.csv' }, messages: { path: 'messages.ndjson' } };
  await writeFile(path.join(dir, CONFIG), JSON.stringify({ sources, baseUrl: 'http://127.0.0.1:9' }));
  const v = await runCli(['validate'], { cwd: dir });
  assert.equal(v.code, 3, v.stdout + v.stderr);
  assert.match(lastLine(v.stdout), /^FAILED: no record read: the export's files hold none/);
  const i = await runCli(['import'], { cwd: dir });
  assert.equal(i.code, 3, i.stdout + i.stderr);
  assert.match(lastLine(i.stdout), /^No record was read: the export's files hold none/);
});

test('DiscordChatExporter DM files with "guild": null are the export, read and counted', async () => {
  const dir = await tempDir('cm-init-census-');
  const from = path.join(FIXTURES, 'presets', 'discord');
  await mkdir(path.join(dir, 'export'));
  for (const name of await readdir(from)) {
    if (!name.startsWith('Direct Messages')) continue;
    const doc = JSON.parse(await readFile(path.join(from, name), 'utf8'));
    await writeFile(path.join(dir, 'export', name), JSON.stringify({ ...doc, guild: null }));
  }
  const r = await runCli(['init', 'export'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /preset "discord"/);
  assert.match(r.stdout, /^The config reads 3 users, 2 groups, 3 members, 6 messages/m);
});

test('several one-chat Telegram exports in one folder are one migration: every chat read', async () => {
  const dir = await tempDir('cm-init-census-');
  const single = JSON.parse(
    await readFile(path.join(FIXTURES, 'presets', 'telegram', 'single', 'result.json'), 'utf8'),
  );
  const other = { ...single, id: single.id + 1000, name: 'Another chat' };
  for (const [folder, doc] of [
    ['ChatExport_a', single],
    ['ChatExport_b', other],
  ]) {
    await mkdir(path.join(dir, 'export', folder), { recursive: true });
    await writeFile(path.join(dir, 'export', folder, 'result.json'), JSON.stringify(doc));
  }
  const r = await runCli(['init', 'export'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(JSON.parse(await readFile(path.join(dir, CONFIG), 'utf8')).from, './export');
  const n = single.messages.length;
  assert.match(r.stdout, new RegExp(`^The config reads .*, ${2 * n} messages`, 'm'));
  const v = await runCli(['validate', '--json', '--retention-days', '0'], { cwd: dir });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal(JSON.parse(v.stdout).byEntity.messages.records, 2 * n);
});

/** @type {Array<[string, (text: string) => Buffer, RegExp]>} */
const ENCODINGS = [
  ['Latin-1', (text) => Buffer.from(text, 'latin1'), /looks like Latin-1 \/ Windows-1252/],
  ['UTF-16 with a BOM', (text) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), /UTF-16LE/],
];
for (const [encoding, bytesOf, looks] of ENCODINGS) {
  test(`a ${encoding} file: one file-level error naming the encoding and iconv, no record of it sent`, async () => {
    const box = await sandbox();
    try {
      const dir = await tempDir('cm-encoding-');
      await writeFile(path.join(dir, 'users.csv'), bytesOf('uid,name\nu1,Ann\nu2,José\nu3,Bo\n'));
      const config = { sources: { users: { path: 'users.csv' } }, baseUrl: box.url, retentionDays: 0 };
      await writeFile(path.join(dir, CONFIG), JSON.stringify(config));
      const v = await runCli(['validate'], { cwd: dir });
      assert.equal(v.code, 3, v.stdout + v.stderr);
      const errors = v.stdout.split('\n').filter((l) => /\[input\.\w+/.test(l));
      assert.equal(errors.length, 1, v.stdout);
      assert.match(errors[0], /users\.csv:1: .*file is not UTF-8/);
      assert.match(errors[0], looks);
      assert.match(errors[0], /iconv -f \S+ -t UTF-8 'users\.csv'/);
      const i = await runCli(['import', '--json'], { cwd: dir });
      assert.equal(i.code, 3, i.stdout + i.stderr);
      assert.equal(JSON.parse(i.stdout).entities.users.imported, 0);
      assert.equal(box.stats().perEntity.users?.stored ?? 0, 0, 'no record of the file reached the service');
    } finally {
      await box.close();
    }
  });
}
