// Set-up shared by the tests that run validate in process over real files: a temporary export with
// its users and groups, planned the way the CLI plans it. Build first: npx tsc -p tsconfig.json
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after } from 'node:test';
import { planSources } from '../dist/sources/plan.js';
import { runValidate } from '../dist/pipeline/validate/validate-pass.js';
import { tempDir } from './helpers.mjs';

/** A fixed "now", so timestamp rules give the same answers on every run. */
export const NOW = 1_700_000_000;
/** A one-block Bloom filter: nearly every muid is a suspect, so the second (duplicates) reading runs. */
export const TINY_BLOOM_BYTES = 128;

export const ndjson = (rows) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

// Each test file runs in its own process, so this hook cleans up after the file that imported it.
const dirs = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** A fresh folder, removed when the file's tests end, holding users.ndjson and groups.ndjson with these records. */
export async function exportDir(prefix, { users, groups }) {
  const dir = await tempDir(prefix);
  dirs.push(dir);
  await writeFile(path.join(dir, 'users.ndjson'), ndjson(users));
  await writeFile(path.join(dir, 'groups.ndjson'), ndjson(groups));
  return dir;
}

/** The plans of an export made by `exportDir`, with messages read from `messagesPath` (a path or a list). */
export function planExport(dir, messagesPath) {
  return planSources(
    { users: { path: 'users.ndjson' }, groups: { path: 'groups.ndjson' }, messages: { path: messagesPath } },
    dir,
  );
}

/** runValidate with the options every test shares: no --max-errors, soft-deleted messages skipped. */
export const validate = (plans, extra = {}) =>
  runValidate({ plans, nowSec: NOW, importSoftDeleted: false, maxErrors: 0, ...extra });
