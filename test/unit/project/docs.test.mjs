// The docs: generated pages match the code (scripts/gen-docs.mjs --check), the README stays short,
// and every link in README.md and docs/ leads somewhere that exists in a user's clone.
// Build first: npm run build
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PAGES, pageAvailable } from '../../../scripts/gen-docs.mjs';
import { ROOT } from '../../helpers.mjs';

const GEN_DOCS = path.join(ROOT, 'scripts', 'gen-docs.mjs');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'data']);

const genDocs = (...args) => spawnSync(process.execPath, [GEN_DOCS, ...args], { encoding: 'utf8' });

/** Every .md file of the repository (not dependencies, builds or bench data), relative to ROOT. */
function markdownFiles(dir = ROOT) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name)) found.push(...markdownFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path.relative(ROOT, full));
  }
  return found;
}

/** README.md and every page under docs/: the files a user reads. */
const userDocs = () => markdownFiles().filter((f) => f === 'README.md' || f.startsWith(`docs${path.sep}`));

const unfenced = (md) => md.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
/** The text a reader sees as prose: fenced blocks and inline code hold examples, not links. */
const prose = (md) => unfenced(md).replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(md) {
  const seen = new Map();
  const out = new Set();
  for (const [, heading] of unfenced(md).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Problems with one file's relative links: a missing target, a path out of the repository, a lost anchor. */
function linkProblems(file) {
  const md = readFileSync(path.join(ROOT, file), 'utf8');
  const pending = new Set(PAGES.filter((p) => p.optional && !pageAvailable(p)).map((p) => path.join(ROOT, p.file)));
  const problems = [];
  for (const [, raw] of prose(md).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) continue;
    const [target, anchor] = raw.split('#');
    const full = target === '' ? path.join(ROOT, file) : path.resolve(ROOT, path.dirname(file), target);
    if (!full.startsWith(ROOT)) problems.push(`${file}: ${raw} leaves the repository`);
    else if (pending.has(full))
      continue; // a generated page whose generator has not landed yet
    else if (!existsSync(full)) problems.push(`${file}: ${raw} does not exist`);
    else if (anchor !== undefined && full.endsWith('.md') && !anchors(readFileSync(full, 'utf8')).has(anchor)) {
      problems.push(`${file}: ${raw}: no heading #${anchor}`);
    }
  }
  return problems;
}

/** A copy of the generated files and their inputs, for the checker to find stale. */
function copyOfGenerated() {
  const root = mkdtempSync(path.join(tmpdir(), 'cm-docs-'));
  const inputs = PAGES.flatMap((p) => p.inputs ?? []).filter((f) => existsSync(path.join(ROOT, f)));
  for (const file of [...PAGES.filter(pageAvailable).map((p) => p.file), ...inputs]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(root, file));
  }
  return root;
}

test('the committed generated pages match the code (gen-docs --check)', () => {
  const run = genDocs('--check');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /up to date/);
});

test('gen-docs --check fails on a stale page and names it, with what differs', () => {
  const root = copyOfGenerated();
  try {
    assert.equal(genDocs('--check', '--root', root).status, 0, 'a faithful copy passes');
    // The drift issue 12 found: a rules table without value.too-deep.
    const rules = path.join(root, 'docs', 'validate-rules.md');
    writeFileSync(rules, readFileSync(rules, 'utf8').replace(/^\| `value\.too-deep` .*\n/m, ''));
    // New bench results without a new page.
    const results = path.join(root, 'bench', 'results.json');
    const json = JSON.parse(readFileSync(results, 'utf8'));
    json.rows[0].measured = '1 rec/s';
    writeFileSync(results, JSON.stringify(json));
    const run = genDocs('--check', '--root', root);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /stale: docs\/validate-rules\.md\n.*0 line\(s\) only in the committed file, 1 only in/);
    assert.match(run.stderr, /generated: "\| `value\.too-deep`/);
    assert.match(run.stderr, /stale: docs\/performance\.md/);
    rmSync(path.join(root, 'docs', 'performance.md'));
    assert.match(genDocs('--check', '--root', root).stderr, /stale: docs\/performance\.md\n\s+missing/);
    // Writing mode brings the copy back in line.
    assert.equal(genDocs('--root', root).status, 0);
    assert.equal(genDocs('--check', '--root', root).status, 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the README stays short: under 16 KB', () => {
  const size = statSync(path.join(ROOT, 'README.md')).size;
  assert.ok(size < 16 * 1024, `README.md is ${size} bytes`);
});

test('no Markdown file points at ../shared, which a user does not have', () => {
  const files = markdownFiles();
  assert.ok(files.includes('README.md') && files.includes(path.join('docs', 'api-contract.md')), files.join(', '));
  const offenders = files.filter((f) => readFileSync(path.join(ROOT, f), 'utf8').includes('../shared'));
  assert.deepEqual(offenders, []);
});

test('every relative link in README.md and docs/ leads to an existing file and heading', () => {
  const files = userDocs();
  assert.ok(files.length >= 10, files.join(', '));
  assert.deepEqual(files.flatMap(linkProblems), []);
});

test('every src/ path the docs name exists (a moved module takes its docs along)', () => {
  const missing = [];
  for (const file of userDocs()) {
    const md = readFileSync(path.join(ROOT, file), 'utf8');
    for (const [, ref] of md.matchAll(/`(src\/[\w./-]*\w)`/g)) {
      if (!existsSync(path.join(ROOT, ref))) missing.push(`${file}: ${ref}`);
    }
  }
  assert.deepEqual(missing, []);
});
