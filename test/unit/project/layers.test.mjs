// The layers of src/ run one way, and no module imports itself back through others. ARCHITECTURE.md
// draws the same table; a new folder must be given a place here before anything may import it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';

const SRC = new URL('../../../src/', import.meta.url).pathname;

/** Higher imports lower; a folder never imports one of its own rank or above. */
const LAYERS = {
  cli: 7,
  report: 6,
  pipeline: 5,
  systems: 4,
  media: 3,
  sources: 2,
  http: 2,
  checkpoint: 2,
  rules: 2,
  sandbox: 2,
  config: 1,
  json: 0,
  entities: 0,
  'errors.ts': 0,
  'clock.ts': 0,
  // The list of chat systems is data alone: the config table and the CLI read their names from it.
  'systems/registry.ts': 0,
};

/**
 * Inside pipeline/: one run kind never imports another; all may use map/ and the shared files. repair/
 * composes verify and import.
 */
const PIPELINE_PARTS = {
  sync: 3,
  repair: 3,
  pull: 2,
  import: 2,
  validate: 2,
  verify: 2,
  init: 2,
  undo: 2,
  map: 1,
  run: 1,
  '.': 0,
};

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every module of `dir` (relative paths, `.ts`) and the modules it imports, static, dynamic or as a worker. */
export function importGraph(dir) {
  const graph = new Map();
  for (const rel of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.ts')) continue;
    const text = readFileSync(path.join(dir, rel), 'utf8');
    const targets = new Set();
    for (const [, spec] of text.matchAll(SPECIFIER)) {
      // Data files the code opens (package.json, fixtures/) are not modules.
      if (!/\.[jt]s$/.test(spec)) continue;
      targets.add(path.normalize(path.join(path.dirname(rel), spec)).replace(/\.js$/, '.ts'));
    }
    graph.set(path.normalize(rel), targets);
  }
  return graph;
}

/** A module's place: its own entry when the table gives it one, else its top folder's. */
const top = (rel) => (rel.split(path.sep).join('/') in LAYERS ? rel.split(path.sep).join('/') : rel.split(path.sep)[0]);
const pipelinePart = (rel) => (rel.split(path.sep).length > 2 ? rel.split(path.sep)[1] : '.');

/** Imports that run up or sideways between layers, as `from -> to` lines. */
export function layerViolations(graph, layers = LAYERS) {
  const out = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [top(from), top(to)];
      if (a === b) {
        if (a === 'pipeline' && pipelinePart(from) !== pipelinePart(to)) {
          if (PIPELINE_PARTS[pipelinePart(from)] <= PIPELINE_PARTS[pipelinePart(to)]) out.push(`${from} -> ${to}`);
        }
        continue;
      }
      if (!(a in layers) || !(b in layers)) out.push(`${from} -> ${to} (no layer for ${a in layers ? b : a})`);
      else if (layers[a] <= layers[b]) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

/** Each import cycle between modules (Tarjan's strongly connected components of more than one module). */
export function importCycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

test('src: imports run down a layer (cli > report > pipeline > systems > media > readers... > base)', () => {
  const graph = importGraph(SRC);
  assert.ok(graph.size > 50, 'the graph was read');
  assert.deepEqual(layerViolations(graph), []);
});

test('src: no import cycle between modules', () => {
  assert.deepEqual(importCycles(importGraph(SRC)), []);
});

test('src: every import names a module that exists', () => {
  const graph = importGraph(SRC);
  const missing = [...graph].flatMap(([from, to]) =>
    [...to].filter((t) => !graph.has(t)).map((t) => `${from} -> ${t}`),
  );
  assert.deepEqual(missing, []);
});

test('the checks catch an upward import, a sideways one, a cycle and an unplaced folder', () => {
  const graph = new Map([
    ['pipeline/import/import-pass.ts', new Set(['report/summary.ts', 'pipeline/validate/tally.ts'])],
    ['report/summary.ts', new Set(['pipeline/import/import-pass.ts'])],
    ['sources/read.ts', new Set(['http/client.ts', 'plugins/upload.ts'])],
    ['pipeline/validate/tally.ts', new Set()],
  ]);
  assert.deepEqual(layerViolations(graph).sort(), [
    'pipeline/import/import-pass.ts -> pipeline/validate/tally.ts',
    'pipeline/import/import-pass.ts -> report/summary.ts',
    'sources/read.ts -> http/client.ts',
    'sources/read.ts -> plugins/upload.ts (no layer for plugins)',
  ]);
  assert.deepEqual(importCycles(graph), [['pipeline/import/import-pass.ts', 'report/summary.ts']]);
});

test('ARCHITECTURE.md names a module for each stage, and the modules it names exist', () => {
  const text = readFileSync(new URL('../../../ARCHITECTURE.md', import.meta.url), 'utf8');
  for (const stage of ['read', 'map', 'check', 'batch', 'send', 'checkpoint', 'rejects', 'report']) {
    assert.match(text, new RegExp(`^\\| ${stage} \\| \`src/[^\`]+\\.ts\` \\|`, 'm'), `stage ${stage}`);
  }
  const named = [...text.matchAll(/`(src\/[\w/.-]+\.ts)`/g)].map((m) => m[1]);
  assert.ok(named.length >= 8);
  for (const file of named) assert.ok(existsSync(new URL(`../../../${file}`, import.meta.url)), `${file} exists`);
  for (const folder of Object.keys(LAYERS)) assert.ok(text.includes(folder.replace('.ts', '')), `${folder} drawn`);
});
