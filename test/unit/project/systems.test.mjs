// One folder per chat system, listed once (src/systems/registry.ts): every folder is listed, every
// listed system's folder gives what the registry says it has, and every list of names is the registry's.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIG_KEYS } from '../../../dist/config/keys.js';
import { loadSystems } from '../../../dist/systems/index.js';
import { PRESET_NAMES, SOURCE_NAMES, SYSTEMS } from '../../../dist/systems/registry.js';

/** Folders of src/systems/ that are no system: what the systems share, and init's detection. */
const NOT_SYSTEMS = new Set(['shared', 'detect']);

test('every folder of src/systems/ is a system of the registry, and every system has its folder', () => {
  const folders = readdirSync(new URL('../../../src/systems/', import.meta.url), { withFileTypes: true })
    .filter((d) => d.isDirectory() && !NOT_SYSTEMS.has(d.name))
    .map((d) => d.name)
    .sort();
  assert.deepEqual(folders, [...PRESET_NAMES].sort());
});

test('each system gives a recogniser and a preset, and a live source exactly when the registry says live', async () => {
  for (const [name, system] of await loadSystems()) {
    assert.equal(typeof system.recognize, 'object', name);
    assert.equal(typeof (await system.preset()), 'function', `${name}: preset`);
    assert.equal(system.source !== undefined, SYSTEMS[name].live, `${name}: source`);
    if (system.source) assert.equal((await system.source()).name, name, `${name}: the source's name`);
  }
});

test('the preset choices and the pull sources are the registry', () => {
  assert.deepEqual([...CONFIG_KEYS.preset.choices], [...PRESET_NAMES]);
  assert.deepEqual(
    [...SOURCE_NAMES],
    PRESET_NAMES.filter((name) => SYSTEMS[name].live),
  );
});

test("no system imports another's folder, and what they share imports none", () => {
  const dir = new URL('../../../src/systems/', import.meta.url);
  const crossing = [];
  for (const rel of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const own = rel.split(/[\\/]/)[0];
    for (const [, other] of readFileSync(new URL(rel, dir), 'utf8').matchAll(/from '\.\.\/([\w-]+)\//g)) {
      if (other !== own && /** @type {readonly string[]} */ (PRESET_NAMES).includes(other))
        crossing.push(`${rel} -> ${other}/`);
    }
  }
  assert.deepEqual(crossing, []);
});
