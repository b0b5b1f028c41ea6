#!/usr/bin/env node
// Fails when a line of code is longer than the limit: the formatter wraps what it can, but not
// strings, comments or template literals, so this catches what it leaves long.
// Usage: node scripts/check-line-length.mjs [dir...]   (default: src test bench scripts)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const MAX = 120;
const EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs', '.cjs']);
/** Data and generated output, not code anyone wraps by hand (`sdk`: vendors' sources pinned as test data). */
const SKIP_DIRS = new Set(['node_modules', 'dist', 'fixtures', 'data', 'sdk']);

/** @param {string} dir @returns {string[]} */
function codeFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) files.push(...codeFiles(full));
    } else if (EXTENSIONS.has(path.extname(entry.name))) files.push(full);
  }
  return files.sort();
}

const dirs = process.argv.length > 2 ? process.argv.slice(2) : ['src', 'test', 'bench', 'scripts'];
let long = 0;
for (const file of dirs.flatMap(codeFiles)) {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    // Code points, not UTF-16 units: an emoji in a test string counts once.
    const length = [...line].length;
    if (length <= MAX) return;
    long++;
    console.log(`${file}:${i + 1}: ${length} characters`);
  });
}
if (long > 0) {
  console.error(`${long} line(s) over ${MAX} characters`);
  process.exitCode = 1;
}
