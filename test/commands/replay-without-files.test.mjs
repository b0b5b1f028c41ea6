// replay --without-missing-files (issue 36, point 6): one command for the messages held for files
// missing at their source. They go in without those files, their text kept and a note of what was
// left out in their metadata, counted in replay's lines and in status; other holds stay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, sandbox } from '../helpers.mjs';
import {
  AWS_ENV,
  bytes,
  mediaMessage as message,
  mediaWorkspace,
  PUBLIC,
  sha256,
  startBucket,
  startFileServer,
} from '../media-servers.mjs';

test('replay --without-missing-files sends the messages held for 404s without those files', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const A = bytes(2000);
  const fs = await startFileServer(new Map([['/pub/a.png', { bytes: A, type: 'image/png' }]]));
  t.after(() => fs.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const at = (p) => `http://127.0.0.1:${fs.port}${p}`;
  const two = message(5, at('/pub/a.png'), 'a.png');
  two.data.attachments.push({ ...two.data.attachments[0], url: at('/gone3.png'), name: 'gone3.png' });
  const messages = [
    message(1, at('/pub/a.png'), 'a.png'),
    message(2, at('/gone1.png'), 'gone1.png'),
    { ...message(3, at('/gone2.png'), 'gone2.png'), type: 'image', data: { attachments: [] } },
    // A 403 is no missing file: its message stays held.
    message(4, at('/private/b.pdf'), 'b.pdf'),
    two,
  ];
  messages[2].data.attachments = [
    { url: at('/gone2.png'), name: 'gone2.png', mimeType: 'image/png', extension: 'png' },
  ];
  const dir = await mediaWorkspace(sb.url, bucket, messages, { hosts: { '127.0.0.1': {} } });
  const env = AWS_ENV;
  const first = await runCli(['import'], { cwd: dir, env });
  assert.equal(first.code, 3, first.stderr);
  assert.deepEqual(Object.keys(sb.records().messages).sort(), ['media1']);

  const alone = await runCli(['replay', '--reason', 'deleted upstream'], { cwd: dir, env });
  assert.equal(alone.code, 2, 'a --reason without the flag is refused');

  const replay = await runCli(['replay', '--without-missing-files', '--reason', 'deleted in 2019'], { cwd: dir, env });
  assert.equal(replay.code, 3, `one message still held\n${replay.stderr}`);
  assert.match(replay.stdout, /3 messages went in without their missing files/);
  const stored = sb.records().messages;
  assert.deepEqual(Object.keys(stored).sort(), ['media1', 'media2', 'media3', 'media5']);
  // The text kept, the file left out and noted, with the reason given.
  assert.equal(stored.media2.data.text, 'file 2');
  assert.equal(stored.media2.type, 'text');
  assert.equal(stored.media2.data.attachments, undefined);
  assert.deepEqual(stored.media2.data.metadata.notCarried, {
    files: [{ url: at('/gone1.png'), reason: 'HTTP 404', name: 'gone1.png' }],
    reason: 'deleted in 2019',
  });
  // No caption: a line naming what was not carried is its text.
  assert.equal(stored.media3.type, 'text');
  assert.match(stored.media3.data.text, /gone2\.png: not carried/);
  // The file that could be carried stays, in the bucket.
  assert.equal(stored.media5.type, 'file');
  assert.deepEqual(
    stored.media5.data.attachments.map((a) => a.url),
    [`${PUBLIC}/att/${sha256(A)}`],
  );
  assert.equal(stored.media5.data.metadata.notCarried.files[0].name, 'gone3.png');

  const status = await runCli(['status'], { cwd: dir, env });
  assert.match(status.stdout, /3 in without their missing files/);
  assert.doesNotMatch(status.stdout, /gone1\.png/);
});
