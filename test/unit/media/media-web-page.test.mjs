// A web page where a file was expected (a host's sign-in page) is never stored as the file: judged by
// the answer's Content-Type and by the bytes themselves, unless the attachment says it is a web page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { downloadFile } from '../../../dist/media/download.js';
import { tempDir } from '../../helpers.mjs';
import { downloadContext } from '../../media-servers.mjs';

const PAGE =
  '\n  <!-- sign in -->\n<!DOCTYPE html><html><head><title>Sign in | Slack</title></head><body>form</body></html>';

/** Serves `PAGE` at every path, with the Content-Type `type`; `/files-pri/...` as Slack names its files. */
async function pageHost(t, type) {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': type }).end(PAGE));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
}

test('media: an HTML answer for an image is not stored, whether the server says HTML or lies', async (t) => {
  const dir = await tempDir();
  const png = { mimeType: 'image/png', extension: 'png', name: 'photo.png' };
  const honest = await pageHost(t, 'text/html; charset=utf-8');
  const said = await downloadFile(`${honest}/files-pri/T1-F1/photo.png`, path.join(dir, 'a'), downloadContext(t), png);
  assert.equal(said.ok, false);
  assert.match(said.reason, /Slack answered with its sign-in page/);
  assert.match(said.reason, /files:read/);
  assert.match(said.reason, /the server said text\/html; the attachment is image\/png/);

  const lying = await pageHost(t, 'image/png');
  const bytes = await downloadFile(`${lying}/other/photo.png`, path.join(dir, 'b'), downloadContext(t), png);
  assert.equal(bytes.ok, false);
  assert.match(bytes.reason, /a web page came instead of the file \(its bytes are HTML/);
  assert.deepEqual(await readdir(dir), [], 'no temp file is left behind');
});

test('media: a web page the attachment says is a web page is carried', async (t) => {
  const dir = await tempDir();
  const host = await pageHost(t, 'text/html');
  const page = await downloadFile(`${host}/saved/page.html`, path.join(dir, 'a'), downloadContext(t), {
    mimeType: 'text/html',
    name: 'page.html',
  });
  assert.equal(page.ok, true, JSON.stringify(page));
  assert.equal(page.file.mimeType, 'text/html');
  const byName = await downloadFile(`${host}/saved/notes.htm`, path.join(dir, 'b'), downloadContext(t), {
    name: 'notes.htm',
  });
  assert.equal(byName.ok, true, JSON.stringify(byName));
});
