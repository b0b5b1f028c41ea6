// The media module's rules on their own: which addresses are refused, which hosts are listed and get
// a header, how `media` settings are checked, and validate's one warning about expiring hosts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import path from 'node:path';
import { downloadFile } from '../../dist/media/download.js';
import { DEFAULT_RETRY_POLICY } from '../../dist/http/retry-policy.js';
import { isPrivateAddress, checkHost } from '../../dist/media/safe-address.js';
import { expiringHostOf, HostRules } from '../../dist/media/host-rules.js';
import { expiringHosts } from '../../dist/systems/index.js';
import { MediaSources, EXPORT_PLACEHOLDER_BASE } from '../../dist/media/media-sources.js';
import { checkConfigLayer } from '../../dist/config/schema.js';
import { FIXTURES, runCli, tempDir, writeConfig } from '../helpers.mjs';
import { downloadContext } from '../media-servers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

test('media: private, loopback, link-local, CGNAT and unique-local addresses are refused', async () => {
  for (const ip of [
    '127.0.0.1',
    '127.0.0.2',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
  ])
    assert.equal(isPrivateAddress(ip), true, ip);
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
    assert.equal(isPrivateAddress(ip), false, ip);
  await assert.rejects(checkHost('169.254.169.254', new Set()), { code: 'EMEDIA_PRIVATE_ADDRESS' });
  await assert.rejects(checkHost('[::1]', new Set()), { code: 'EMEDIA_PRIVATE_ADDRESS' });
  await assert.rejects(checkHost('localhost', new Set()), { code: 'EMEDIA_PRIVATE_ADDRESS' });
  await checkHost('localhost', new Set(['localhost']));
});

test('media: a host with HTTP Basic from two variables (Twilio MCS): both needed, all of it secret', async () => {
  const basic = { basic: { userEnv: 'TW_KEY', passwordEnv: 'TW_SECRET' } };
  const rules = new HostRules({ 'mcs.us1.twilio.com': basic }, { TW_KEY: 'SK1', TW_SECRET: 'pw-9f8e' });
  const encoded = Buffer.from('SK1:pw-9f8e').toString('base64');
  assert.deepEqual(rules.headerFor('mcs.us1.twilio.com'), { name: 'Authorization', value: `Basic ${encoded}` });
  assert.deepEqual(rules.secrets, ['pw-9f8e', encoded]);
  assert.throws(() => new HostRules({ 'mcs.us1.twilio.com': basic }, { TW_KEY: 'SK1' }), {
    message: /TW_SECRET is not set/,
  });
  assert.throws(() => new HostRules({ 'mcs.us1.twilio.com': basic }, {}), {
    message: /TW_KEY and TW_SECRET are not set/,
  });
  const ok = checkConfigLayer(
    { media: { bucket: 'b1x', publicBaseUrl: 'https://m.example', hosts: { h: basic } } },
    'file',
  );
  assert.deepEqual(ok.media.hosts.h, basic);
  const bad = (auth) => () =>
    checkConfigLayer({ media: { bucket: 'b1x', publicBaseUrl: 'https://m.example', hosts: { h: auth } } }, 'file');
  assert.throws(
    bad({ basic: { userEnv: 'A' } }),
    /"media\.hosts\.h\.basic\.passwordEnv" must name an environment variable/,
  );
  assert.throws(bad({ basic: { userEnv: 'A', passwordEnv: 'secret value' } }), /passwordEnv/);
  assert.throws(bad({ basic: 'A:B' }), /basic" must be \{"userEnv"/);
  assert.throws(bad({ ...basic, header: 'Authorization', valueEnv: 'X' }), /leave out "header"/);
  assert.equal(expiringHostOf('mcs.us1.twilio.com', await expiringHosts()), 'mcs.us1.twilio.com');
});

test('media: the allow-list matches names and *.domains; a header only for its own host', async () => {
  const rules = new HostRules(
    { 'files.slack.com': { header: 'Authorization', valueEnv: 'T', prefix: 'Bearer ' }, '*.example.com': {} },
    { T: 'secret-value' },
  );
  assert.equal(rules.allows('FILES.slack.com'), true);
  assert.equal(rules.allows('slack.com'), false);
  assert.equal(rules.allows('a.example.com'), true);
  assert.equal(rules.allows('example.com.evil.org'), false);
  assert.deepEqual(rules.headerFor('files.slack.com'), { name: 'Authorization', value: 'Bearer secret-value' });
  assert.equal(rules.headerFor('a.example.com'), undefined);
  assert.deepEqual(rules.secrets, ['secret-value']);
  assert.throws(() => new HostRules({ 'files.slack.com': { header: 'Authorization', valueEnv: 'NOPE' } }, {}), {
    message: /NOPE is not set/,
  });
  assert.equal(expiringHostOf('cdn.discordapp.com', await expiringHosts()), 'cdn.discordapp.com');
  assert.equal(expiringHostOf('x.stream-io-cdn.com', await expiringHosts()), '*.stream-io-cdn.com');
  assert.equal(expiringHostOf('example.org', await expiringHosts()), undefined);
});

test('media: export files stay inside the export folder', () => {
  const sources = new MediaSources(
    new HostRules({}),
    true,
    { baseUrl: EXPORT_PLACEHOLDER_BASE, folder: '/exp' },
    process.cwd(),
  );
  const ok = sources.sourceOf(`${EXPORT_PLACEHOLDER_BASE}/photos/a%20b.jpg`, undefined);
  assert.equal(ok.file, path.resolve('/exp/photos/a b.jpg'));
  assert.equal(ok.placeholder, true);
  assert.match(sources.sourceOf(`${EXPORT_PLACEHOLDER_BASE}/../etc/passwd`, undefined).refused, /climbs out/);
  assert.equal(sources.sourceOf('files/x.bin', '/data/messages.ndjson').file, path.resolve('/data/files/x.bin'));
  assert.match(sources.sourceOf('../x.bin', '/data/messages.ndjson').refused, /climbs out/);
  assert.equal(sources.sourceOf('/etc/passwd', '/data/messages.ndjson'), undefined);
  assert.equal(sources.sourceOf('https://not-listed.example/x.png', undefined), undefined);
});

test('media: settings are checked field by field; no secret value has a place in them', () => {
  const ok = checkConfigLayer({ media: { bucket: 'b1x', publicBaseUrl: 'https://m.example' } }, 'file').media;
  assert.equal(ok.acl, 'private');
  assert.equal(ok.maxFileBytes, 104857600);
  assert.equal(ok.prefix, 'media/');
  assert.throws(
    () =>
      checkConfigLayer(
        {
          media: {
            bucket: 'b1x',
            acl: 'public',
            maxFileBytes: 200_000_000,
            hosts: { 'files.slack.com': { header: 'Authorization', value: 'xoxb-1' } },
            buckt: 1,
          },
        },
        'file',
      ),
    (/** @type {Error} */ err) => {
      for (const text of ['"media.publicBaseUrl" is required', '"media.acl"', '"media.maxFileBytes"', 'buckt'])
        assert.ok(err.message.includes(text), `${text} in ${err.message}`);
      assert.match(err.message, /needs both "header" and "valueEnv"/);
      assert.ok(!err.message.includes('xoxb-1'));
      return true;
    },
  );
});

test('validate: one warning counts attachments on expiring hosts that media does not carry', async () => {
  const dir = await tempDir('cm-media-validate-');
  const from = path.join(FIXTURES, 'presets', 'discord');
  // The fixture's messages are years old: past the default retention window, whose messages are skipped.
  const run = await runCli(['validate', '--preset', 'discord', '--from', from, '--retention-days', '0'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n').filter((l) => l.includes('stop serving them'));
  assert.equal(lines.length, 1, run.stdout);
  assert.match(lines[0], /3 attachments .*cdn\.discordapp\.com 2, media\.discordapp\.net 1/);
  const media = { bucket: 'b1x', publicBaseUrl: 'https://m.example', hosts: { 'cdn.discordapp.com': {} } };
  await writeConfig(dir, { media });
  const covered = await runCli(['validate', '--preset', 'discord', '--from', from, '--json'], { cwd: dir });
  assert.deepEqual(JSON.parse(covered.stdout).expiringMedia, { total: 1, byHost: { 'media.discordapp.net': 1 } });
});

/** A file server on loopback whose `answer(n)` gives the status and headers of its n-th request (from 1). */
async function fileHost(t, answer) {
  const arrivals = [];
  const agents = [];
  const server = createServer((req, res) => {
    arrivals.push(Date.now());
    agents.push(req.headers['user-agent']);
    const { status, headers = {} } = answer(arrivals.length);
    if (status !== 200) return void res.writeHead(status, headers).end('not now');
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': 5 }).end('hello');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}/a.png`, arrivals, agents };
}

test('media: a download answered 429 with Retry-After: 30 is tried again no sooner than that', async (t) => {
  const host = await fileHost(t, (n) =>
    n === 1 ? { status: 429, headers: { 'retry-after': '30' } } : { status: 200 },
  );
  const dir = await tempDir();
  // On a virtual clock: the wait is measured by it and costs no real time.
  const clock = virtualClock();
  const start = clock.now();
  const fetched = await downloadFile(host.url, path.join(dir, 'a'), downloadContext(t, clock));
  assert.equal(fetched.ok, true, JSON.stringify(fetched));
  assert.equal(host.arrivals.length, 2);
  // Every try says what asks: the tool, its version and where to read about it.
  for (const agent of host.agents) assert.match(agent, /^chat-migrate\/\d+\.\d+\.\d+ \(\+https:\/\/\S+\)$/);
  const waited = clock.now() - start;
  assert.ok(waited >= 30_000, `tried again after ${waited} ms, Retry-After asked 30 s`);
});

test('media: a host that keeps answering 503 fails that file after the download retries, with the cause', async (t) => {
  const host = await fileHost(t, () => ({ status: 503 }));
  const dir = await tempDir();
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1 };
  const fetched = await downloadFile(host.url, path.join(dir, 'a'), { ...downloadContext(t), policy });
  assert.equal(fetched.ok, false);
  assert.match(fetched.reason, /HTTP 503; gave up after 3 retries/);
  assert.equal(host.arrivals.length, 1 + DEFAULT_RETRY_POLICY.downloadRetries);
});

test('media: a media host whose name does not resolve fails that file at once, naming the host', async (t) => {
  const ctx = downloadContext(t);
  // Allowed by name, so the socket's own lookup is the one that fails.
  const allowed = { ...ctx, rules: new HostRules({ 'nosuch.invalid': {} }), allowPrivate: new Set(['nosuch.invalid']) };
  const dir = await tempDir();
  const started = Date.now();
  const fetched = await downloadFile('http://nosuch.invalid/a.png', path.join(dir, 'a'), allowed);
  assert.equal(fetched.ok, false);
  assert.match(fetched.reason, /cannot reach nosuch\.invalid: .*(ENOTFOUND|EAI_AGAIN).*: check the URL/);
  assert.ok(Date.now() - started < 3000, 'no retries');
});
