// Media edges (issue 25, point 6), each against real servers: a header bound to its origin through
// redirects, `size` a string as the vendor types it, hosts not on media.hosts named, one object per
// content whatever the extension, no hint to allow a metadata address, a killed run's temp files gone
// on resume, and the rehearsal recipe of docs/rehearse-then-migrate.md run as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer as createHttpsServer } from 'node:https';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer as createNetServer, connect } from 'node:net';
import path from 'node:path';
import { Agent } from 'undici';
import { Bandwidth } from '../../dist/media/bandwidth.js';
import { downloadFile } from '../../dist/media/download.js';
import { HostRules } from '../../dist/media/host-rules.js';
import { checkHost } from '../../dist/media/safe-address.js';
import { systemClock } from '../../dist/clock.js';
import { DEFAULT_RETRY_POLICY } from '../../dist/http/retry-policy.js';
import { makeSelfSignedPair } from '../../dist/sandbox/tls-pair.js';
import {
  collect,
  readNdjson,
  ROOT,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitFor,
  writeConfig,
  writeGeneratedExport,
} from '../helpers.mjs';
import {
  AWS_ENV,
  bytes,
  FILE_TOKEN,
  mediaMessage as message,
  mediaWorkspace,
  PUBLIC,
  sha256,
  startBucket,
  startFileServer,
} from '../media-servers.mjs';

const workspace = mediaWorkspace;

const BEARER_LOCALHOST = { localhost: { header: 'Authorization', valueEnv: 'T', prefix: 'Bearer ' } };

/**
 * What the carrier gives a download: by default `localhost` listed with a bearer header; trusting `ca`.
 * @param {any} t
 * @param {string | undefined} ca
 * @param {Record<string, object>} [hosts]
 */
function downloadContext(t, ca, hosts = BEARER_LOCALHOST) {
  const dispatcher = new Agent({ connect: { ca } });
  t.after(() => dispatcher.close());
  return {
    dispatcher,
    policy: DEFAULT_RETRY_POLICY,
    clock: systemClock,
    rules: new HostRules(hosts, { T: FILE_TOKEN }),
    allowPrivate: new Set(Object.keys(hosts)),
    bandwidth: new Bandwidth(0, systemClock),
    maxFileBytes: 1_000_000,
    signal: new AbortController().signal,
    limiters: new Map(),
  };
}

test('media header: only to its origin; a redirect to http or another port drops it', async (t) => {
  const tls = await makeSelfSignedPair();
  const plain = await startFileServer(new Map([['/private/a.png', { bytes: bytes(10) }]]));
  t.after(() => plain.close());
  const other = await startFileServer(new Map([['/pub/b.png', { bytes: bytes(10) }]]));
  t.after(() => other.close());
  // An https host on the same name that sends every request to plain http.
  const secureHits = [];
  const secure = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    secureHits.push({ path: req.url, auth: req.headers.authorization === `Bearer ${FILE_TOKEN}` });
    res.writeHead(302, { location: `http://localhost:${plain.port}${req.url}` }).end();
  });
  await new Promise((resolve) => secure.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => new Promise((resolve) => secure.close(resolve)));
  const securePort = /** @type {import('node:net').AddressInfo} */ (secure.address()).port;
  const dir = await tempDir();
  const ctx = downloadContext(t, tls.cert);

  // https -> http on the same name: the token stays with the https origin.
  const downgraded = await downloadFile(`https://localhost:${securePort}/private/a.png`, path.join(dir, 'a'), ctx);
  assert.deepEqual(secureHits, [{ path: '/private/a.png', auth: true }]);
  assert.deepEqual(
    plain.hits.map((h) => `${h.path} ${h.auth}`),
    ['/private/a.png false'],
    'the bearer token went to plain http',
  );
  assert.equal(downgraded.ok, false);

  // Same scheme and name, another port: another origin, no header.
  plain.hits.length = 0;
  const to = encodeURIComponent(`http://localhost:${other.port}/pub/b.png`);
  const moved = await downloadFile(`http://localhost:${plain.port}/redirect/${to}`, path.join(dir, 'b'), ctx);
  assert.equal(moved.ok, true, JSON.stringify(moved));
  assert.deepEqual(plain.hits[0].auth, true, 'the first hop is the configured origin: it gets the header');
  assert.deepEqual(
    other.hits.map((h) => h.auth),
    [false],
    'the header went to another port',
  );

  // A redirect within the origin keeps it: the private file comes.
  plain.hits.length = 0;
  const same = encodeURIComponent(`http://localhost:${plain.port}/private/a.png`);
  const kept = await downloadFile(`http://localhost:${plain.port}/redirect/${same}`, path.join(dir, 'c'), ctx);
  assert.equal(kept.ok, true, JSON.stringify(kept));
  assert.deepEqual(
    plain.hits.map((h) => h.auth),
    [true, true],
  );
});

test('media size: a carried attachment keeps size a string, as the vendor schema types it', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const A = bytes(3000);
  const fs = await startFileServer(new Map([['/pub/a.png', { bytes: A, type: 'image/png' }]]));
  t.after(() => fs.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const url = `http://127.0.0.1:${fs.port}/pub/a.png`;
  // One export writes size as a number, the other as a string: both go out as the string of the bytes read.
  const messages = [message(1, url, 'a.png', { size: 3000 }), message(2, url, 'b.png', { size: '17' })];
  const dir = await workspace(sb.url, bucket, messages, { hosts: { '127.0.0.1': {} } });
  const run = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(run.code, 0, run.stderr);
  const stored = sb.records().messages;
  for (const id of ['media1', 'media2']) {
    const [a] = stored[id].data.attachments;
    assert.ok(a.url.startsWith(`${PUBLIC}/att/${sha256(A)}`), a.url);
    assert.equal(a.size, String(A.length), `${id}: size ${JSON.stringify(a.size)}`);
  }
});

test('media hosts: attachments on hosts not in media.hosts are counted and named by validate and import', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const messages = [];
  for (let i = 0; i < 12; i++) messages.push(message(i, `https://files.old.example/f/${i}.png`, `${i}.png`));
  for (let i = 12; i < 15; i++) messages.push(message(i, `https://cdn.other.example/${i}.png`, `${i}.png`));
  // The typo: "exmaple".
  const dir = await workspace(sb.url, bucket, messages, { hosts: { 'files.old.exmaple': {} } });
  const named = new RegExp(
    'media does not carry 15 attachments, which keep their URL: ' +
      '12 on files\\.old\\.example, 3 on cdn\\.other\\.example: not in media\\.hosts',
  );

  const validate = await runCli(['validate'], { cwd: dir });
  assert.match(validate.stdout, named, validate.stdout);
  const validateJson = JSON.parse((await runCli(['validate', '--json'], { cwd: dir })).stdout);
  assert.deepEqual(validateJson.unlistedMedia, {
    total: 15,
    byHost: { 'files.old.example': 12, 'cdn.other.example': 3 },
  });

  const run = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, named, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout).media.notListed, {
    total: 15,
    byHost: { 'files.old.example': 12, 'cdn.other.example': 3 },
  });
  // Listed correctly, nothing is left to name.
  const fixed = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  fixed.media.hosts = { 'files.old.example': {}, 'cdn.other.example': {} };
  await writeConfig(dir, fixed);
  const again = await runCli(['validate'], { cwd: dir });
  assert.doesNotMatch(again.stdout, /not in media\.hosts/);
});

test('media content: the same bytes under two extensions are one stored object', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const A = bytes(4000);
  const fs = await startFileServer(
    new Map([
      ['/pub/a.png', { bytes: A, type: 'image/png' }],
      ['/pub/a.jpg', { bytes: A, type: 'image/png' }],
      ['/pub/a.PNG', { bytes: A, type: 'image/png' }],
    ]),
  );
  t.after(() => fs.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const at = (p) => `http://127.0.0.1:${fs.port}${p}`;
  const messages = [
    message(1, at('/pub/a.png'), 'a.png'),
    message(2, at('/pub/a.jpg'), 'a.jpg'),
    message(3, at('/pub/a.PNG'), 'a.PNG'),
    message(4, at('/pub/a.png'), 'a'),
  ];
  const dir = await workspace(sb.url, bucket, messages, { hosts: { '127.0.0.1': {} }, concurrency: 1 });
  const run = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual([...(await bucket.objects()).keys()], [`att/${sha256(A)}`]);
  assert.equal(bucket.uploads(), 1, 'the same bytes were uploaded twice');
  const stored = sb.records().messages;
  const urls = new Set([1, 2, 3, 4].map((i) => stored[`media${i}`].data.attachments[0].url));
  assert.deepEqual([...urls], [`${PUBLIC}/att/${sha256(A)}`]);
  // Each attachment keeps its own name and extension: only the stored object is shared.
  assert.equal(stored.media2.data.attachments[0].extension, 'jpg');
});

test('media refusal: the hint never suggests allowing a link-local or cloud metadata address', async (t) => {
  const metadata = ['169.254.169.254', '169.254.170.2', '[fe80::1]', '[fd00:ec2::254]', '100.100.100.200'];
  for (const host of metadata) {
    const bare = host.replace(/^\[|\]$/g, '');
    // Refused without a hint, and listing it in allowPrivateHosts does not open it.
    await assert.rejects(checkHost(host, new Set()), (/** @type {any} */ err) => {
      assert.equal(err.code, 'EMEDIA_PRIVATE_ADDRESS');
      assert.doesNotMatch(err.message, /allowPrivateHosts/, err.message);
      assert.match(err.message, /link-local or cloud metadata address: never fetched/);
      return true;
    });
    await assert.rejects(checkHost(host, new Set([bare, host])), { code: 'EMEDIA_PRIVATE_ADDRESS' });
  }
  // A LAN address is a file server someone may mean: that one keeps the hint, and the allowance works.
  await assert.rejects(checkHost('10.1.2.3', new Set()), /allow it by name in media\.allowPrivateHosts/);
  await checkHost('10.1.2.3', new Set(['10.1.2.3']));

  // Through a redirect, as a download meets it: refused before any connection, no hint to allow it.
  const fs = await startFileServer(new Map());
  t.after(() => fs.close());
  const hosts = { localhost: {}, '169.254.169.254': {} };
  const ctx = downloadContext(t, undefined, hosts);
  ctx.allowPrivate = new Set(['localhost', '169.254.169.254']);
  const to = encodeURIComponent('http://169.254.169.254/latest/meta-data/iam/security-credentials/');
  const dir = await tempDir();
  const fetched = await downloadFile(`http://localhost:${fs.port}/redirect/${to}`, path.join(dir, 'm'), ctx);
  assert.equal(fetched.ok, false);
  assert.match(fetched.reason, /169\.254\.169\.254 .*never fetched/);
  assert.doesNotMatch(fetched.reason, /allowPrivateHosts/);
});

test('media temp files: a resume removes what the killed run left; none outside the state folder', async (t) => {
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const files = new Map();
  const messages = [];
  for (let i = 0; i < 20; i++) files.set(`/pub/f${i}.bin`, { bytes: bytes(60_000) });
  const fs = await startFileServer(files);
  t.after(() => fs.close());
  for (let i = 0; i < 20; i++) messages.push(message(i, `http://127.0.0.1:${fs.port}/pub/f${i}.bin`, `f${i}.bin`));
  const sb = await sandbox();
  t.after(() => sb.close());
  // 1.2 MB at 200 KB/s: about six seconds, so the kill lands mid-download.
  const dir = await workspace(sb.url, bucket, messages, {
    hosts: { '127.0.0.1': {} },
    bandwidth: 200_000,
    concurrency: 2,
  });
  // The system's temp folder of the runs, watched for anything the tool leaves there.
  const systemTemp = path.join(dir, 'system-tmp');
  await mkdir(systemTemp);
  const env = { ...AWS_ENV, TMPDIR: systemTemp };
  const mapFile = path.join(dir, 'state', 'ckpt.media.ndjson');
  const child = spawnCli(['import'], { cwd: dir, env });
  const done = collect(child);
  await waitFor(async () => (await readNdjson(mapFile).catch(() => [])).length >= 3, {
    timeoutMs: 30_000,
    what: '3 files in the media map',
  });
  child.kill('SIGKILL');
  assert.equal((await done).signal, 'SIGKILL');
  // Wherever the tool keeps them, the killed run left downloads in progress behind.
  const tempState = path.join(dir, 'state', 'ckpt.media-tmp');
  const left = async () => [
    ...(await readdir(systemTemp, { recursive: true })),
    ...(await readdir(tempState, { recursive: true }).catch(() => [])),
  ];
  assert.ok((await left()).length > 0, 'the killed run left nothing: the test proves nothing');

  const resumed = await runCli(['import', '--json'], { cwd: dir, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(await left(), [], 'temp files of the killed run (or the resumed one) are left');
  const state = await readdir(path.join(dir, 'state'));
  assert.ok(!state.includes('ckpt.media-tmp'), `a temp folder left in the state folder: ${state.join(', ')}`);
  assert.equal((await bucket.objects()).size, 20);
});

/** The fenced block of `lang` that follows the line holding `marker` in a Markdown text. */
function blockAfter(text, marker, lang) {
  const at = text.indexOf(marker);
  assert.ok(at >= 0, `the doc has no "${marker}"`);
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(at));
  assert.ok(match, `no ${lang} block after "${marker}"`);
  return match[1];
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });

const accepts = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket.end() && true)).on('error', () => resolve(false));
  });

test('docs: the rehearsal recipe with a local S3-compatible server works as written', async (t) => {
  const doc = await readFile(path.join(ROOT, 'docs', 'rehearse-then-migrate.md'), 'utf8');
  const shell = blockAfter(doc, '## Media in a rehearsal', 'sh');
  const config = JSON.parse(blockAfter(doc, '## Media in a rehearsal', 'json'));
  // The server as the doc starts it, on a port of this test's.
  const line = shell.split('\n').find((l) => l.includes('s3rver') && l.includes('--configure-bucket'));
  assert.ok(line, shell);
  const docPort = /--port (\d+)/.exec(line)[1];
  const port = await freePort();
  const args = line
    .replace(/^.*?s3rver(@[\d.]+)?\s+/, '')
    .replace(`--port ${docPort}`, `--port ${port}`)
    .split(/\s+/);
  const dir = await tempDir('cm-media-doc-');
  const s3 = spawn(process.execPath, [path.join(ROOT, 'node_modules', 's3rver', 'bin', 's3rver.js'), ...args], {
    cwd: dir,
    stdio: 'ignore',
  });
  t.after(() => s3.kill());
  await waitFor(() => accepts(port), { what: 's3rver listening' });
  const envLine = shell.split('\n').find((l) => l.includes('AWS_ACCESS_KEY_ID'));
  const docEnv = Object.fromEntries([...envLine.matchAll(/(AWS_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));

  const A = bytes(2500);
  const fs = await startFileServer(new Map([['/pub/a.png', { bytes: A, type: 'image/png' }]]));
  t.after(() => fs.close());
  const sb = await sandbox();
  t.after(() => sb.close());
  const { sources } = await writeGeneratedExport(dir, { users: 3, groups: 1, membersPerGroup: 3, messages: 0 });
  const url = `http://127.0.0.1:${fs.port}/pub/a.png`;
  await writeFile(path.join(dir, 'messages.ndjson'), `${JSON.stringify(message(1, url, 'a.png'))}\n`);
  const media = { ...config.media };
  media.endpoint = media.endpoint.replace(`:${docPort}`, `:${port}`);
  media.publicBaseUrl = media.publicBaseUrl.replace(`:${docPort}`, `:${port}`);
  // The export's file host stands in for the real one the doc lists.
  media.hosts = { '127.0.0.1': {} };
  media.allowPrivateHosts = ['127.0.0.1'];
  await writeConfig(dir, { appId: 'app', region: 'us', baseUrl: sb.url, sources, media });
  const run = await runCli(['import', '--json'], { cwd: dir, env: docEnv });
  assert.equal(run.code, 0, run.stderr);
  const [a] = sb.records().messages.media1.data.attachments;
  assert.equal(a.url, `${media.publicBaseUrl.replace(/\/+$/, '')}/${media.prefix ?? 'media/'}${sha256(A)}`);
  // The object is there, readable from the bucket as the doc says to look at it.
  const got = await fetch(a.url);
  assert.equal(got.status, 200);
  assert.ok(Buffer.from(await got.arrayBuffer()).equals(A));
});
