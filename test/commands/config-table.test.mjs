// The key table (src/config/keys.ts) against everything derived from it: the committed example file and
// reference page, the commander options, --help, the layer check, the environment and the flags layers.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { Command } from 'commander';
import { addConfigOptions, configFlags } from '../../dist/cli/options.js';
import { renderConfigReference, renderExampleConfig } from '../../scripts/config-doc.mjs';
import { CONFIG_KEY_NAMES, CONFIG_KEYS as TABLE } from '../../dist/config/keys.js';
import { loadConfig } from '../../dist/config/load.js';
import { checkConfigLayer } from '../../dist/config/schema.js';
import { runCli, tempDir } from '../helpers.mjs';
import { PRESET_NAMES } from '../../dist/systems/registry.js';

/** The table as its entries' common shape: a key may lack a flag or an env var. */
const CONFIG_KEYS = /** @type {Record<string, import('../../dist/config/keys.js').KeySpec>} */ (TABLE);
const REGENERATE = "regenerate it with scripts/config-doc.mjs (npm run build, then write the renderer's text)";
const flagged = CONFIG_KEY_NAMES.filter((key) => CONFIG_KEYS[key].flag !== undefined);
const longName = (flag) => flag.split(' ')[0];

test('the committed .migrate.config.example.json and docs/configuration.md are what the table renders', async () => {
  const example = await readFile(new URL('../../.migrate.config.example.json', import.meta.url), 'utf8');
  assert.equal(example, renderExampleConfig(), `.migrate.config.example.json is stale: ${REGENERATE}`);
  const reference = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  assert.equal(reference, renderConfigReference(), `docs/configuration.md is stale: ${REGENERATE}`);
  for (const key of CONFIG_KEY_NAMES) assert.match(reference, new RegExp(`\\| \`${key}\` \\|`), `no row for ${key}`);
});

test("the example config's note names every preset the preset key takes", async () => {
  const example = JSON.parse(await readFile(new URL('../../.migrate.config.example.json', import.meta.url), 'utf8'));
  const named = /"preset" \(([^)]*)\)/.exec(example['//'])?.[1].split(', ');
  assert.deepEqual(named, [...PRESET_NAMES]);
});

test('every key with a flag is an option of each command that uses it, and import --help shows it', async () => {
  for (const key of flagged) {
    for (const command of CONFIG_KEYS[key].commands) {
      const longs = addConfigOptions(new Command(), command).options.map((o) => o.long);
      assert.ok(longs.includes(longName(CONFIG_KEYS[key].flag)), `${key}: no commander option on ${command}`);
    }
  }
  const help = await runCli(['import', '--help']);
  assert.equal(help.code, 0, help.stderr);
  for (const key of flagged) {
    const { flag, commands } = CONFIG_KEYS[key];
    assert.equal(help.stdout.includes(flag), commands.includes('import'), `import --help and ${flag}`);
  }
});

test('each flag lands on its key in the flags layer (--skip-bots sets includeBots to false)', () => {
  const samples = { int: ['7', 7], rate: ['auto', 'auto'], bool: [undefined, true] };
  for (const key of flagged) {
    const { flag, kind, flagSets, commands } = CONFIG_KEYS[key];
    const spec = /** @type {{ choices?: readonly string[], pattern?: unknown }} */ (CONFIG_KEYS[key]);
    // A word from a list is taken in any case and lands as the list writes it.
    const word = spec.choices?.[0] ?? (spec.pattern ? 'v3' : 'some-value');
    const [text, value] = samples[kind] ?? [spec.choices ? word.toUpperCase() : word, word];
    const cmd = addConfigOptions(new Command(), commands[0]).exitOverride();
    cmd.parse(text === undefined ? [longName(flag)] : [longName(flag), text], { from: 'user' });
    assert.deepEqual(configFlags(cmd.opts()), { [key]: kind === 'bool' ? (flagSets ?? value) : value }, flag);
  }
  assert.deepEqual(configFlags({ skipBots: true }), { includeBots: false });
});

test('the layer check refuses an unknown key, checks every key of the table and accepts the example', () => {
  // A near miss is named (issue 13: did-you-mean); a key near none lists the known ones.
  assert.throws(
    () => checkConfigLayer({ batchSzie: 10 }, 'f'),
    /f: "batchSzie" is not a known key; did you mean "batchSize"\?/,
  );
  assert.throws(() => checkConfigLayer({ colour: 10 }, 'f'), /f: "colour" is not a known key \(known: appId, /);
  assert.throws(() => checkConfigLayer({ toString: 'x' }, 'f'), /"toString" is not a known key/);
  assert.throws(() => checkConfigLayer({ ['__proto__']: {} }, 'f'), /"__proto__" is not a known key/);
  for (const key of CONFIG_KEY_NAMES) {
    assert.throws(() => checkConfigLayer({ [key]: [] }, 'f'), new RegExp(`f: "${key}" must`), `${key} takes []`);
  }
  const example = JSON.parse(renderExampleConfig());
  assert.deepEqual(Object.keys(example).slice(1), CONFIG_KEY_NAMES);
  checkConfigLayer(example, 'example');
});

test('each key with an env var is read from it, beneath the flags', async () => {
  const cwd = await tempDir();
  const withEnv = CONFIG_KEY_NAMES.filter((key) => CONFIG_KEYS[key].env !== undefined);
  assert.ok(withEnv.length > 0);
  const env = Object.fromEntries(withEnv.map((key) => [CONFIG_KEYS[key].env, String(CONFIG_KEYS[key].example)]));
  const { config } = await loadConfig({ cwd, env, flags: {}, requireApiKey: true });
  for (const key of withEnv) assert.equal(config[key], CONFIG_KEYS[key].example, key);
  const overridden = await loadConfig({ cwd, env, flags: { region: 'eu' }, requireApiKey: true });
  assert.equal(overridden.config.region, 'eu');
});
