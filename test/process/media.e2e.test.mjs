// Re-hosting attachments (issue 18): a real S3-compatible server (s3rver), a file server with auth,
// the sandbox, and the CLI as a child process. What is carried lands once per content with the right
// bytes, messages point at it; a message whose file is not carried waits; a loopback redirect is refused;
// a killed run resumes without uploading anything twice; no credential shows anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readNdjson, runCli, sandbox, spawnCli, collect, tempDir, waitFor, writeConfig } from '../helpers.mjs';
import {
  AWS_ENV,
  AWS_SECRET,
  bytes,
  BUCKET,
  FILE_TOKEN,
  mediaMessage as message,
  mediaWorkspace,
  PUBLIC,
  sha256,
  startBucket,
  startFileServer,
} from '../media-servers.mjs';

const workspace = mediaWorkspace;

/** Every file the run left behind, and its output: none may hold a credential. */
async function assertNoSecrets(dir, outputs) {
  const secrets = [FILE_TOKEN, AWS_SECRET, 'S3RVER'];
  const files = (await readdir(dir, { recursive: true })).filter((f) => !f.endsWith('.ndjson') || f.includes('ckpt'));
  for (const f of [...files, 'migrate-rejects.ndjson']) {
    const text = await readFile(path.join(dir, f), 'utf8').catch(() => '');
    for (const s of secrets) assert.ok(!text.includes(s), `${f} holds a credential`);
  }
  for (const out of outputs) for (const s of secrets) assert.ok(!out.includes(s), 'the output holds a credential');
}

test('media: carried once per content, URLs rewritten, a failed file holds its message, no loopback', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const A = bytes(3000);
  const B = bytes(5000);
  const C = bytes(700);
  const BIG = bytes(9 * 1024 * 1024);
  const LOCAL = bytes(1234);
  const files = new Map([
    ['/pub/a.png', { bytes: A, type: 'image/png' }],
    ['/pub/copy-of-a.png', { bytes: A, type: 'image/png' }],
    ['/private/b.pdf', { bytes: B, type: 'application/pdf' }],
    ['/pub/c.txt', { bytes: C, type: 'text/plain' }],
    ['/pub/big.bin', { bytes: BIG }],
    ['/secret.png', { bytes: bytes(10) }],
  ]);
  const fs = await startFileServer(files);
  t.after(() => fs.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const at = (p) => `http://127.0.0.1:${fs.port}${p}`;
  const redirect = (to) => at(`/redirect/${encodeURIComponent(to)}`);
  const messages = [
    message(1, at('/pub/a.png'), 'a.png'),
    message(2, at('/pub/copy-of-a.png'), 'copy.png'),
    message(3, at('/private/b.pdf'), 'b.pdf'),
    message(4, 'https://elsewhere.example.org/x.png?sig=1', 'x.png'),
    message(5, at('/missing.png'), 'missing.png'),
    message(6, redirect(`http://127.0.0.2:${fs.port}/secret.png`), 'secret.png'),
    message(7, redirect(`http://localhost:${fs.port}/pub/c.txt`), 'c.txt'),
    message(8, 'files/local.bin', 'local.bin'),
    message(9, at('/pub/big.bin'), 'big.bin'),
    message(10, at('/pub/a.png'), 'a.png'),
  ];
  const hosts = {
    '127.0.0.1': { header: 'Authorization', valueEnv: 'TEST_FILES_TOKEN', prefix: 'Bearer ' },
    localhost: {},
    '127.0.0.2': {},
  };
  const dir = await workspace(sb.url, bucket, messages, { hosts, exportFiles: true });
  await mkdir(path.join(dir, 'files'));
  await writeFile(path.join(dir, 'files', 'local.bin'), LOCAL);
  const env = { ...AWS_ENV, TEST_FILES_TOKEN: FILE_TOKEN };

  // Two files cannot be carried: their messages wait (exit 3, as for an open reject).
  const run = await runCli(['import', '--json'], { cwd: dir, env });
  assert.equal(run.code, 3, run.stderr);
  const summary = JSON.parse(run.stdout);
  assert.ok(!run.stderr.includes('NodeVersionSupportWarning'), 'the SDK warning reached the output');
  assert.equal(summary.media.failed, 2, JSON.stringify(summary.media));
  assert.equal(summary.media.files, 8);

  // The bucket: each distinct content once, byte-exact, under <prefix><sha256>.
  const objects = await bucket.objects();
  const want = new Map([
    [`att/${sha256(A)}`, A],
    [`att/${sha256(B)}`, B],
    [`att/${sha256(C)}`, C],
    [`att/${sha256(LOCAL)}`, LOCAL],
    [`att/${sha256(BIG)}`, BIG],
  ]);
  assert.deepEqual([...objects.keys()].sort(), [...want.keys()].sort());
  for (const [key, body] of want) assert.ok(objects.get(key).equals(body), `${key} bytes`);
  assert.equal(bucket.uploads(), 5, 'one upload per distinct content');

  const stored = sb.records().messages;
  const att = (i) => stored[`media${i}`].data.attachments[0];
  assert.equal(att(1).url, `${PUBLIC}/att/${sha256(A)}`);
  assert.equal(att(1).size, String(A.length));
  assert.equal(att(1).mimeType, 'image/png');
  assert.equal(att(2).url, att(1).url);
  assert.equal(att(3).url, `${PUBLIC}/att/${sha256(B)}`);
  assert.equal(att(4).url, 'https://elsewhere.example.org/x.png?sig=1', 'not on the list: kept');
  assert.equal(stored.media4.data.metadata, undefined);
  // A 404 and a refused redirect: those messages are held back, in the rejects file with the reason.
  assert.equal(stored.media5, undefined, 'a message pointing at the old system was sent');
  assert.equal(stored.media6, undefined);
  const held = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
  assert.deepEqual(
    held.map((r) => `${r.id} ${r.code}`),
    ['media5 media.not-carried', 'media6 media.not-carried'],
  );
  assert.match(held[0].message, /HTTP 404/);
  assert.match(held[1].message, /private or local address/);
  assert.equal(att(7).url, `${PUBLIC}/att/${sha256(C)}`);
  assert.equal(att(8).url, `${PUBLIC}/att/${sha256(LOCAL)}`);
  assert.equal(att(9).size, String(BIG.length));

  // Safety: nothing reached the loopback target; the header went to its own host only.
  assert.equal(fs.hits.filter((h) => h.path === '/secret.png').length, 0, 'the loopback redirect was followed');
  assert.ok(fs.hits.some((h) => h.path === '/private/b.pdf' && h.auth));
  assert.ok(fs.hits.some((h) => h.path === '/pub/c.txt' && h.host.startsWith('localhost') && !h.auth));
  assert.ok(!fs.hits.some((h) => h.path === '/x.png'));

  const problems = await readNdjson(path.join(dir, 'state', 'ckpt.media-problems.ndjson'));
  assert.equal(problems.length, 2);
  const map = await readNdjson(path.join(dir, 'state', 'ckpt.media.ndjson'));
  assert.equal(map.length, 6);
  await assertNoSecrets(dir, [run.stdout, run.stderr]);

  // A repeated run carries nothing again.
  const again = await runCli(['import', '--json', '--fresh'], { cwd: dir, env });
  assert.equal(again.code, 3, again.stderr);
  assert.equal(bucket.uploads(), 5, 'a repeated run uploaded again');
  assert.equal(JSON.parse(again.stdout).media.reused, 6);
});

test('media: a run with nothing new reads no message file for media; a grown one from where it ended', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const files = new Map([1, 2, 3, 4].map((i) => [`/pub/${i}.bin`, { bytes: bytes(500 + i) }]));
  const fs = await startFileServer(files);
  t.after(() => fs.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const at = (i) => `http://127.0.0.1:${fs.port}/pub/${i}.bin`;
  const dir = await workspace(
    sb.url,
    bucket,
    [1, 2, 3].map((i) => message(i, at(i), `${i}.bin`)),
    {
      hosts: { '127.0.0.1': {} },
    },
  );
  const first = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout).media.files, 3);
  const downloads = () => fs.hits.filter((h) => h.path.startsWith('/pub/')).length;
  const before = downloads();

  const again = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).media.files, 0, 'the unchanged file was read for its attachments');
  assert.equal(downloads(), before);

  await appendFile(path.join(dir, 'messages.ndjson'), `${JSON.stringify(message(4, at(4), '4.bin'))}\n`);
  const grown = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(grown.code, 0, grown.stderr);
  assert.equal(JSON.parse(grown.stdout).media.files, 1, 'only the new line is read');
  assert.equal(bucket.uploads(), 4);
  assert.equal(
    sb.records().messages.media4.data.attachments[0].url,
    `${PUBLIC}/att/${sha256(files.get('/pub/4.bin').bytes)}`,
  );
});

test('media: a Telegram export folder: relative files carried, a missing one holds its message', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await tempDir('cm-media-tg-');
  const exportDir = path.join(dir, 'export');
  await mkdir(path.join(exportDir, 'photos'), { recursive: true });
  const PHOTO = bytes(4000);
  await writeFile(path.join(exportDir, 'photos', 'photo 1.jpg'), PHOTO);
  const msg = (id, extra) => ({
    id,
    type: 'message',
    date: '2023-11-26T12:00:00',
    date_unixtime: String(1701000000 + id),
    from: 'Carol',
    from_id: 'user444',
    text: `m${id}`,
    ...extra,
  });
  const result = {
    name: 'Carol',
    type: 'personal_chat',
    id: 444,
    messages: [
      msg(1, { photo: 'photos/photo 1.jpg', width: 10, height: 10 }),
      msg(2, { photo: 'photos/gone.jpg', width: 10, height: 10 }),
      msg(3, { file: '../outside.txt', mime_type: 'text/plain' }),
    ],
  };
  await writeFile(path.join(exportDir, 'result.json'), JSON.stringify(result));
  await writeFile(path.join(dir, 'outside.txt'), 'not the export');
  await writeConfig(dir, {
    appId: 'app',
    region: 'us',
    baseUrl: sb.url,
    requestsPerMinute: 6000,
    preset: 'telegram',
    from: 'export',
    media: {
      bucket: BUCKET,
      endpoint: bucket.endpoint,
      forcePathStyle: true,
      publicBaseUrl: PUBLIC,
      exportFiles: true,
    },
  });
  const run = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(run.code, 3, run.stderr);
  const objects = await bucket.objects();
  assert.deepEqual([...objects.keys()], [`media/${sha256(PHOTO)}`]);
  const stored = Object.values(sb.records().messages);
  const byText = (text) => stored.find((m) => m.data.text === text);
  assert.equal(byText('m1').data.attachments[0].url, `${PUBLIC}/media/${sha256(PHOTO)}`);
  // A missing file and one outside the export: their messages wait, with the reason.
  assert.equal(byText('m2'), undefined, 'a placeholder URL is never sent');
  assert.equal(byText('m3'), undefined);
  const held = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
  assert.deepEqual(
    held.map((r) => r.code),
    ['media.not-carried', 'media.not-carried'],
  );
  assert.match(held[0].message, /no such file/);
  assert.match(held[1].message, /climbs out of the export folder/);
  for (const m of stored) for (const a of m.data.attachments ?? []) assert.ok(!a.url.includes('.invalid'));
  await assertNoSecrets(dir, [run.stdout, run.stderr]);
});

test('media: killed mid-run (SIGKILL), the resumed run uploads nothing twice', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const files = new Map();
  const messages = [];
  for (let i = 0; i < 30; i++) {
    files.set(`/pub/f${i}.bin`, { bytes: bytes(50_000) });
    messages.push(message(i, '', `f${i}.bin`));
  }
  const fs = await startFileServer(files);
  t.after(() => fs.close());
  for (let i = 0; i < 30; i++) messages[i].data.attachments[0].url = `http://127.0.0.1:${fs.port}/pub/f${i}.bin`;
  const sb = await sandbox();
  t.after(() => sb.close());
  // 1.5 MB at 300 KB/s: about five seconds, so the kill lands mid-run.
  const dir = await workspace(sb.url, bucket, messages, {
    hosts: { '127.0.0.1': {} },
    bandwidth: 300_000,
    concurrency: 2,
  });
  const mapFile = path.join(dir, 'state', 'ckpt.media.ndjson');
  const child = spawnCli(['import'], { cwd: dir, env: AWS_ENV });
  const done = collect(child);
  const carried = async () => (await readNdjson(mapFile).catch(() => [])).length;
  await waitFor(async () => (await carried()) >= 5, { timeoutMs: 30_000, what: '5 files in the media map' });
  child.kill('SIGKILL');
  const killed = await done;
  assert.equal(killed.signal, 'SIGKILL');
  const before = bucket.uploads();
  assert.ok(before < 30, `the kill came too late (${before} uploads)`);

  const resumed = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(bucket.uploads(), 30, 'a file was uploaded twice');
  assert.equal((await bucket.objects()).size, 30);
  assert.equal((await readNdjson(mapFile)).length, 30);
  const stored = sb.records().messages;
  for (let i = 0; i < 30; i++) assert.ok(stored[`media${i}`].data.attachments[0].url.startsWith(PUBLIC));
});

test('media: through a proxy, files come via the proxy; a private name is refused before it', async (t) => {
  const { Server } = await import('proxy-chain');
  const seen = [];
  const proxy = new Server({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ hostname, port }) => {
      seen.push(`${hostname}:${port}`);
      return {};
    },
  });
  await proxy.listen();
  t.after(() => proxy.close(true));
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const A = bytes(2000);
  const fs = await startFileServer(new Map([['/pub/a.png', { bytes: A, type: 'image/png' }]]));
  t.after(() => fs.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const messages = [
    message(1, `http://127.0.0.1:${fs.port}/pub/a.png`, 'a.png'),
    message(2, `http://localhost:${fs.port}/pub/a.png`, 'b.png'),
  ];
  const hosts = { '127.0.0.1': {}, localhost: {} };
  const dir = await workspace(sb.url, bucket, messages, { hosts, allowPrivateHosts: ['127.0.0.1'] });
  const env = {
    ...AWS_ENV,
    http_proxy: undefined,
    https_proxy: undefined,
    HTTPS_PROXY: undefined,
    no_proxy: undefined,
    HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
    NO_PROXY: `127.0.0.1:${sb.port}`,
  };
  const run = await runCli(['import', '--json'], { cwd: dir, env });
  assert.equal(run.code, 3, run.stderr);
  const stored = sb.records().messages;
  assert.equal(stored.media1.data.attachments[0].url, `${PUBLIC}/att/${sha256(A)}`);
  assert.equal(stored.media2, undefined, 'held back: its file is on a private name');
  const [held] = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
  assert.match(held.message, /private or local address/);
  assert.deepEqual(seen, [`127.0.0.1:${fs.port}`], 'the download did not go through the proxy');
  assert.equal(fs.hits.length, 1);
});

test('media: a bucket that cannot be used stops the run before anything is sent, naming no secret', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb.url, bucket, [message(1, 'https://files.example.org/a.png', 'a.png')], {
    bucket: 'no-such-bucket',
    hosts: { 'files.example.org': {} },
  });
  const run = await runCli(['import'], { cwd: dir, env: AWS_ENV });
  assert.notEqual(run.code, 0);
  assert.match(
    run.stderr,
    /media\.bucket "no-such-bucket" cannot be used: NotFound \(HTTP 404\) \[MEDIA_BUCKET_UNREACHABLE\]/,
  );
  assert.equal(sb.stats().requests, 0);
  await assertNoSecrets(dir, [run.stdout, run.stderr]);
});
