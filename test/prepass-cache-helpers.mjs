// Shared steps of the pre-pass cache tests: an export whose message files cannot be parsed in their
// middle any more, yet look as they did (size, head, tail, modification time), is planned from the
// cache alone; one whose file changed is read again.
import assert from 'node:assert/strict';
import { cp, open, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { preparePreset } from '../dist/systems/preset.js';
import { tempDir } from './helpers.mjs';

const PAD = 200 * 1024;
const GARBLE = { from: 70 * 1024, to: 130 * 1024 };
const WHOLE_SECONDS = Math.floor(Date.now() / 1000) - 60;

/**
 * Copies `fixture` to a temp folder; its JSON message files get 200 KiB of blanks where `padAt` says
 * (default: after the first `[`, before the first message), so a reading of a garbled one misses them.
 * In JSON Lines, `padAt` puts them between two tokens of a message's line, which a garbling breaks.
 * `every`: all the files of the copy.
 */
export async function paddedExport(fixture, isMessageFile, padAt = (text) => text.indexOf('[') + 1) {
  const dir = await tempDir('cm-prepass-');
  const from = path.join(dir, 'export');
  await cp(fixture, from, { recursive: true });
  const files = [];
  for (const rel of await listFiles(from)) {
    if (!isMessageFile(rel)) continue;
    const file = path.join(from, rel);
    const text = await readFile(file, 'utf8');
    const at = padAt(text);
    await writeFile(file, text.slice(0, at) + ' '.repeat(PAD) + text.slice(at));
    // Whole seconds: `garble` puts them back exactly (a fraction of a millisecond may not survive utimes).
    await utimes(file, WHOLE_SECONDS, WHOLE_SECONDS);
    files.push(rel);
  }
  assert.ok(files.length > 0, 'the fixture has message files');
  return { dir, from, files, every: await listFiles(from), state: path.join(dir, 'state') };
}

/** Overwrites blanks in the middle of each file with letters, keeping size, head, tail and mtime. */
export async function garble(from, files) {
  for (const rel of files) {
    const file = path.join(from, rel);
    const before = await stat(file);
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(GARBLE.to - GARBLE.from, 'x'), 0, GARBLE.to - GARBLE.from, GARBLE.from);
    await handle.close();
    await utimes(file, before.atime, before.mtime);
  }
}

/** Plans the export as `import` does (id map and pre-pass cache beside a checkpoint), then commits. */
export async function planAndCommit(preset, from, state, { cache = true } = {}) {
  const prepared = await preparePreset(preset, from, {
    cwd: path.dirname(from),
    idMapFile: path.join(state, 'ckpt.ids.ndjson'),
    prepassFile: cache ? path.join(state, 'ckpt.prepass.json') : undefined,
  });
  await prepared.idMap.commit();
  const idMap = await readFile(path.join(state, 'ckpt.ids.ndjson'), 'utf8');
  const notMessages = prepared.plans.filter((p) => p.entity.name !== 'messages').flatMap((p) => p.inputs);
  return { prepared, idMap, listed: await readInputs(notMessages) };
}

/** Every item of the inputs, by input (the messages' inputs are left out: they read the message files). */
async function readInputs(inputs) {
  const out = {};
  for (const input of inputs) {
    const items = [];
    for await (const item of input.read({})) items.push(item);
    out[input.display] = items;
  }
  return out;
}

async function listFiles(root, rel = '') {
  const out = [];
  for (const entry of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(root, child)));
    else out.push(child);
  }
  return out;
}
