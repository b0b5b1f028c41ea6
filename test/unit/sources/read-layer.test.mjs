// One read layer: plain sources and presets' exports (folders and zip entries) go through the same
// byte layer, line splitter and JSON streamer, so the same bytes give the same problem either way.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { readSourceFile, resolveSourceFiles } from '../../../dist/sources/index.js';
import { tempDir } from '../../helpers.mjs';
import { plan, PRESET_FIXTURES, readPlans, zipFolder } from '../../presets-helpers.mjs';

// A lead byte without its continuation, after a valid 'é': a damaged line of a UTF-8 file (a file with
// no UTF-8 character at all reads as Latin-1, one input.encoding).
const BAD = Buffer.concat([Buffer.from('é'), Buffer.from([0xc3, 0x28])]);

/** `text` with BAD inserted right after the first occurrence of `after`. */
function withBadBytes(text, after) {
  const bytes = Buffer.from(text, 'utf8');
  const at = bytes.indexOf(after) + Buffer.byteLength(after);
  return Buffer.concat([bytes.subarray(0, at), BAD, bytes.subarray(at)]);
}

/** The problems of `bytes` read as a plain source file named `name`. */
async function plainProblems(dir, name, bytes) {
  await writeFile(path.join(dir, name), bytes);
  const [file] = await resolveSourceFiles({ path: name }, dir);
  const items = [];
  for await (const item of readSourceFile(file, { entity: 'messages' })) items.push(item);
  return items.filter((i) => i.kind === 'problem');
}

/** The problems of `bytes` as the one file of a Stream export, read with the stream preset from a folder and a zip. */
async function presetProblems(dir, name, bytes) {
  const folder = path.join(dir, 'export');
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, name), bytes);
  const zip = await zipFolder(folder, path.join(dir, 'export.zip'));
  const out = [];
  for (const from of [folder, zip]) {
    const r = await readPlans((await plan('stream', from)).plans);
    out.push(['users', 'groups', 'members', 'messages'].flatMap((e) => r[e].problems));
  }
  return out;
}

/** What must agree between the two paths (ordinals count per input, so only whether there is one). */
const same = (p) => ({ ...pick(p), slot: p.ordinal !== undefined, fatal: !!p.fatalForFile });
const pick = ({ rule, line, message }) => ({ rule, line, message });
const UTF8_ON_LINE_3 = {
  rule: 'input.utf8',
  line: 3,
  message: 'line is not valid UTF-8 (re-export the file as UTF-8)',
  slot: true,
  fatal: false,
};

test('invalid UTF-8 in JSON Lines: the same input.utf8 from NDJSON and in a Stream export (folder, zip)', async () => {
  const dir = await tempDir('cm-read-layer-');
  const text = await readFile(path.join(PRESET_FIXTURES, 'stream-export', 'launch-v2.jsonl'), 'utf8');
  const bytes = withBadBytes(text, '"id": "live-1"'); // line 3
  const plain = await plainProblems(dir, 'launch.ndjson', bytes);
  assert.deepEqual(plain.map(same), [UTF8_ON_LINE_3]);
  for (const problems of await presetProblems(dir, 'launch-v2.jsonl', bytes)) {
    assert.deepEqual(problems.map(same), plain.map(same));
    assert.match(problems[0].file, /launch-v2\.jsonl$/);
  }
});

test('invalid UTF-8 in a record of a JSON array: the same problem from JSON and in a Stream import file', async () => {
  const dir = await tempDir('cm-read-layer-');
  const items = JSON.parse(await readFile(path.join(PRESET_FIXTURES, 'stream', 'data.json'), 'utf8'));
  const messages = items.filter((i) => i.type === 'message').map((i) => i.item);
  // One record a line in both files, so the second message is on line 3 of each.
  const lines = (values) => `[\n${values.map((v) => JSON.stringify(v)).join(',\n')}\n]\n`;
  const badId = `"id":"${messages[1].id}"`;
  const plain = await plainProblems(dir, 'messages.json', withBadBytes(lines(messages), badId));
  assert.deepEqual(plain.map(same), [UTF8_ON_LINE_3]);
  const wrapped = withBadBytes(lines(messages.map((item) => ({ type: 'message', item }))), badId);
  for (const problems of await presetProblems(dir, 'data.json', wrapped)) {
    assert.deepEqual(problems.map(same), plain.map(same));
  }
});
