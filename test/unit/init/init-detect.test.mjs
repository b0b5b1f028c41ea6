// init's preset recognition on its own: by content whatever the names, and bounded on a big export.
import assert from 'node:assert/strict';
import { cp, mkdir, open, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { detectPreset, openExportTree } from '../../../dist/systems/detect/index.js';
import { tempDir } from '../../helpers.mjs';
import { PRESET_FIXTURES } from '../../presets-helpers.mjs';

async function detect(from) {
  return detectPreset(await openExportTree(from, path.dirname(from)), from);
}

test('files renamed and moved are recognised by what they hold', async () => {
  const dir = await tempDir('cm-detect-');
  await cp(path.join(PRESET_FIXTURES, 'discord'), path.join(dir, 'x'), { recursive: true });
  let n = 0;
  for (const name of await readdir(path.join(dir, 'x')))
    if (name.endsWith('.json')) await rename(path.join(dir, 'x', name), path.join(dir, 'x', `export-${n++}.txt`));
  const found = await detect(path.join(dir, 'x'));
  assert.equal(found?.preset, 'discord');
  assert.equal(found?.counts.messages, 14);
  assert.equal(await detect(path.join(PRESET_FIXTURES, '..', 'init', 'helpdesk')), undefined, 'plain CSVs: no preset');
});

test('a file past the count budget is counted over its start and estimated by its size', async () => {
  const dir = await tempDir('cm-detect-');
  await mkdir(path.join(dir, 'mm'));
  const file = await open(path.join(dir, 'mm', 'export.jsonl'), 'w');
  await file.write(`${JSON.stringify({ type: 'version', version: 1 })}\n`);
  const posts = 400_000;
  let chunk = '';
  for (let i = 0; i < posts; i++) {
    const message = `message ${i} `.padEnd(160, '.');
    const post = { team: 't', channel: `c${i % 9}`, user: 'u', message, create_at: i };
    chunk += `${JSON.stringify({ type: 'post', post })}\n`;
    if (chunk.length > 1 << 20) {
      await file.write(chunk);
      chunk = '';
    }
  }
  await file.write(chunk);
  await file.close();
  const found = await detect(path.join(dir, 'mm'));
  assert.equal(found?.preset, 'mattermost');
  assert.equal(found?.counts.estimated, true);
  const off = Math.abs(found.counts.messages - posts) / posts;
  assert.ok(off < 0.02, `about ${posts} messages, found ${found.counts.messages}`);
});
