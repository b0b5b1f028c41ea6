#!/usr/bin/env node
// Writes the pages generated from the code, or with --check exits 1 naming each committed page that
// differs from what the code renders now (`npm test` runs the check). The renderers (scripts/*-doc.mjs,
// bench/performance-doc.mjs) read the built code in dist/, so run `npm run build` first.
// Usage: node scripts/gen-docs.mjs [--check] [--root <dir>]
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { renderPerformanceDoc } from '../bench/performance-doc.mjs';
import { renderSystemsDoc } from './systems-doc.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** A JSON input of a page; an `optional` one that is not there is undefined. */
const readJson = (root, file, optional = false) =>
  optional && !existsSync(path.join(root, file)) ? undefined : JSON.parse(readFileSync(path.join(root, file), 'utf8'));

/** The bench's results files docs/performance.md is rendered from: the run's, and each section's own. */
const BENCH_RESULTS = {
  run: 'bench/results.json',
  pull: 'bench/pull-results.json',
  verifyScale: 'bench/verify-scale-results.json',
  delta: 'bench/delta-results.json',
  syncRound: 'bench/sync-round-results.json',
};

/**
 * One entry a generated file; adding a page is adding a line. `module` (under this repository) is
 * imported and passed to `render(module, root)`, which returns the file's text; `root` is where the
 * pages and their inputs (`inputs`: bench/results.json...) are. An `optional` entry whose module does
 * not exist yet is skipped.
 */
export const PAGES = [
  { file: 'docs/validate-rules.md', module: 'scripts/rules-doc.mjs', render: (m) => m.renderRulesDoc() },
  { file: 'docs/systems.md', module: 'dist/systems/registry.js', render: (m) => renderSystemsDoc(m) },
  {
    file: 'docs/performance.md',
    inputs: Object.values(BENCH_RESULTS),
    render: (_m, root) =>
      renderPerformanceDoc(
        readJson(root, BENCH_RESULTS.run),
        Object.fromEntries(
          Object.entries(BENCH_RESULTS)
            .filter(([name]) => name !== 'run')
            .map(([name, file]) => [name, readJson(root, file, true)]),
        ),
      ),
  },
  { file: 'docs/configuration.md', module: 'scripts/config-doc.mjs', render: (m) => m.renderConfigReference() },
  { file: '.migrate.config.example.json', module: 'scripts/config-doc.mjs', render: (m) => m.renderExampleConfig() },
];

/** Whether an entry's renderer can run: its module exists (a missing optional one means "not yet"). */
export const pageAvailable = (page) => page.module === undefined || existsSync(path.join(REPO, page.module));

/** A few lines saying how two texts differ: counts of lines only in each, and the first difference. */
export function diffSummary(committed, generated) {
  if (committed === undefined) return 'missing (the generator would create it)';
  const a = committed.split('\n');
  const b = generated.split('\n');
  const counts = new Map();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of b) {
    const n = counts.get(line) ?? 0;
    if (n > 0) counts.set(line, n - 1);
    else added += 1;
  }
  const removed = [...counts.values()].reduce((sum, n) => sum + n, 0);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  const show = (line) => (line === undefined ? '(end of file)' : JSON.stringify(line.slice(0, 100)));
  return [
    `${removed} line(s) only in the committed file, ${added} only in the generated one; ` +
      `first difference at line ${i + 1}:`,
    `    committed: ${show(a[i])}`,
    `    generated: ${show(b[i])}`,
  ].join('\n');
}

/** A renderer's import failed: dist/, which it reads, is missing or older than the code. */
const notBuilt = (error) => {
  throw new Error(`${error.message}: run \`npm run build\` first`);
};

/** Renders every available page; resolves to the pages with their committed and generated text. */
export async function renderPages(root) {
  const out = [];
  for (const page of PAGES) {
    if (!pageAvailable(page)) {
      if (page.optional) continue;
      throw new Error(`${page.module} is missing: run \`npm run build\` first`);
    }
    const url = page.module === undefined ? undefined : pathToFileURL(path.join(REPO, page.module)).href;
    const mod = url === undefined ? undefined : await import(url).catch(notBuilt);
    const generated = await page.render(mod, root);
    const target = path.join(root, page.file);
    const committed = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    out.push({ file: page.file, target, committed, generated });
  }
  return out;
}

async function main() {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, root: { type: 'string' } } });
  const root = path.resolve(values.root ?? REPO);
  let pages;
  try {
    pages = await renderPages(root);
  } catch (error) {
    process.stderr.write(`gen-docs: ${error.message}\n`);
    process.exit(2);
  }
  const stale = pages.filter((p) => p.committed !== p.generated);
  if (values.check) {
    for (const p of stale) process.stderr.write(`stale: ${p.file}\n  ${diffSummary(p.committed, p.generated)}\n`);
    if (stale.length > 0) {
      process.stderr.write('run `npm run build && node scripts/gen-docs.mjs` and commit the result\n');
      process.exit(1);
    }
    process.stdout.write(`gen-docs: ${pages.length} generated file(s) up to date\n`);
    return;
  }
  for (const p of stale) {
    mkdirSync(path.dirname(p.target), { recursive: true });
    writeFileSync(`${p.target}.tmp`, p.generated);
    renameSync(`${p.target}.tmp`, p.target);
    process.stdout.write(`wrote ${p.file}\n`);
  }
  process.stdout.write(`gen-docs: ${pages.length - stale.length} file(s) already up to date\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
