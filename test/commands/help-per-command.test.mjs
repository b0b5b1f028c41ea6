// Each command's --help lists the flags of the config keys it uses (the key table's `commands`), and a
// flag of a key it does not use is an unknown option: `ids find` no longer lists 35 import flags.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { COMMAND_NAMES, CONFIG_KEYS } from '../../dist/config/keys.js';
import { PRESET_NAMES } from '../../dist/systems/registry.js';
import { generatedWorkspace, runCli, sandbox, tempDir } from '../helpers.mjs';

/** Each config-reading command as typed, with its name in the key table. */
/** @type {Array<[string[], string]>} */
const COMMANDS = [
  [['import'], 'import'],
  [['validate'], 'validate'],
  [['status'], 'status'],
  [['verify'], 'verify'],
  [['undo'], 'undo'],
  [['replay'], 'replay'],
  [['report'], 'report'],
  [['ids', 'find'], 'ids'],
];

const longFlag = (flag) => /^--[a-z0-9-]+/.exec(flag)[0];
/** The long flags a --help text lists in its Options section (not the program's global ones). */
const listedFlags = (help) => {
  const own = help.split('Global Options:')[0];
  return new Set([...own.matchAll(/^\s+(?:-\w, )?(--[a-z0-9-]+)/gm)].map((m) => m[1]));
};

test("each command's --help lists exactly the flags of the keys it uses", async () => {
  const cwd = await tempDir();
  for (const [words, name] of COMMANDS) {
    const help = await runCli([...words, '--help'], { cwd });
    assert.equal(help.code, 0, help.stderr);
    const listed = listedFlags(help.stdout);
    for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
      if (!('flag' in spec)) continue;
      const uses = /** @type {readonly string[]} */ (spec.commands).includes(name);
      assert.equal(listed.has(longFlag(spec.flag)), uses, `${words.join(' ')} --help and ${key} (${spec.flag})`);
    }
    assert.ok(listed.has('--config') && listed.has('--json'), words.join(' '));
  }
});

test('the lists read as a person expects: ids find and status take the checkpoint, not the import flags', async () => {
  const cwd = await tempDir();
  const ids = listedFlags((await runCli(['ids', 'find', '--help'], { cwd })).stdout);
  assert.deepEqual([...ids].sort(), ['--checkpoint', '--config', '--help', '--json']);
  const undo = listedFlags((await runCli(['undo', '--help'], { cwd })).stdout);
  for (const flag of ['--api-key', '--app-id', '--region', '--rest-requests-per-minute', '--yes', '--dry-run'])
    assert.ok(undo.has(flag), `undo --help lists ${flag}`);
  for (const flag of ['--preset', '--batch-size', '--skip-bots']) assert.ok(!undo.has(flag), `undo: ${flag}`);
  const validate = listedFlags((await runCli(['validate', '--help'], { cwd })).stdout);
  assert.ok(!validate.has('--api-key') && !validate.has('--requests-per-minute'), 'validate sends nothing');
  // A flag the command does not use is refused as commander refuses any unknown option (exit 2).
  const status = await runCli(['status', '--batch-size', '5'], { cwd });
  assert.equal(status.code, 2, status.stderr);
  assert.match(status.stderr, /unknown option '--batch-size'/);
});

test('every key names only commands that exist; the preset choices are the presets', () => {
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    for (const command of spec.commands) assert.ok(COMMAND_NAMES.includes(command), `${key}: ${command}`);
  }
  assert.deepEqual([...CONFIG_KEYS.preset.choices], [...PRESET_NAMES]);
});

test('a located error names its place once: no doubled "t/rej.ndjson:3: t/rej.ndjson:3:"', async () => {
  const sb = await sandbox();
  try {
    const { dir } = await generatedWorkspace(sb, { users: 3, groups: 1, membersPerGroup: 1, messages: 1 });
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    await mkdir(path.join(dir, 't'));
    const rejects = ['{"entity":"users","file":"users.ndjson","ordinal":1}', '{"entity":"users"}', '{not json'];
    await writeFile(path.join(dir, 't', 'rej.ndjson'), `${rejects.join('\n')}\n`);
    const run = await runCli(['replay', 't/rej.ndjson'], { cwd: dir });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /^error: t\/rej\.ndjson:3: [^\n]*\[REPLAY_REJECTS_UNREADABLE\]$/m);
    assert.equal(run.stderr.split('t/rej.ndjson:3').length - 1, 1, run.stderr);
    // A message that names its file in its own words is not prefixed with it again.
    const missing = await runCli(['validate', '--user-map', 'nomap.csv'], { cwd: dir });
    assert.equal(missing.code, 1, missing.stderr);
    assert.equal(missing.stderr.split('nomap.csv').length - 1, 1, missing.stderr);
  } finally {
    await sb.close();
  }
});

test('in a folder without a config, the commands that need one say so and where they looked', async () => {
  const cwd = await tempDir();
  for (const command of ['import', 'validate', 'verify', 'undo', 'replay']) {
    const run = await runCli([command], { cwd });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /\[CONFIG_NOT_FOUND\]/, command);
    const looked = new RegExp(`no config file found in ${cwd}: looked for \\.migrate\\.config\\.json, .*\\.migraterc`);
    assert.match(run.stderr, looked, command);
    assert.match(run.stderr, /chat-migrate init <export>/, command);
  }
  // The environment and the flags can say everything: then no file is missing.
  const flagsOnly = await runCli(['validate', '--preset', 'slack', '--from', 'nowhere'], { cwd });
  assert.doesNotMatch(flagsOnly.stderr, /CONFIG_NOT_FOUND/);
  // status reads only the checkpoint, which has a default: nothing is missing without a file.
  assert.equal((await runCli(['status'], { cwd })).code, 0);
});
