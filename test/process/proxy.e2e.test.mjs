// Proxies from the environment (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), through a real forward proxy on
// loopback (proxy-chain) that counts the tunnels it opened; credentials in the proxy URL never printed.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { Server } from 'proxy-chain';
import { request } from 'undici';
import { createDispatcher, proxyFor } from '../../dist/http/dispatcher.js';
import { proxySecrets, readProxySettings } from '../../dist/http/proxy-env.js';
import { fixtureWorkspace, runCli, runCliProcess, sandbox } from '../helpers.mjs';

const USER = 'migrator';
/** Characters that must be percent-encoded in a URL, so both forms are looked for in the output. */
const PASSWORD = 'Pr0xy:s3cret@42';
const ENCODED = encodeURIComponent(PASSWORD);

/** A proxy asking for USER/PASSWORD; `tunnels` lists the host:port of each CONNECT it accepted. */
async function startProxy(t) {
  const tunnels = [];
  const proxy = new Server({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ username, password, hostname, port, isHttp }) => {
      const ok = username === USER && password === PASSWORD;
      if (ok && !isHttp) tunnels.push(`${hostname}:${port}`);
      return { requestAuthentication: !ok };
    },
  });
  await proxy.listen();
  t.after(() => proxy.close(true));
  return { proxy, tunnels, url: (auth = `${USER}:${ENCODED}@`) => `http://${auth}127.0.0.1:${proxy.port}` };
}

/** Only the proxy variables given reach the CLI; the machine's own are cleared. */
const proxyEnv = (vars) => ({
  http_proxy: undefined,
  HTTP_PROXY: undefined,
  https_proxy: undefined,
  HTTPS_PROXY: undefined,
  no_proxy: undefined,
  NO_PROXY: undefined,
  NODE_EXTRA_CA_CERTS: undefined,
  ...vars,
});

function assertNoCredentials(run) {
  for (const secret of [PASSWORD, ENCODED, `${USER}:`]) {
    assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `output shows ${secret}`);
  }
}

test('the proxy variables are read as curl and npm read them; NO_PROXY matches hosts, subdomains and ports', () => {
  const settings = readProxySettings({ HTTP_PROXY: 'proxy.corp:3128', https_proxy: 'http://u:p@secure.corp:8080' });
  assert.equal(settings.http.url.href, 'http://proxy.corp:3128/');
  assert.equal(settings.https.variable, 'https_proxy');
  assert.equal(readProxySettings({ HTTP_PROXY: 'http://only:1' }).https.variable, 'HTTP_PROXY');
  const route = (url, noProxy) => proxyFor(new URL(url), { ...settings, noProxy })?.variable;
  assert.equal(route('https://app.api-us.example.io', ''), 'https_proxy');
  assert.equal(route('http://127.0.0.1:8787', ''), 'HTTP_PROXY', 'loopback is proxied unless NO_PROXY says');
  assert.equal(route('https://app.api-us.example.io', 'localhost,.example.io'), undefined);
  assert.equal(route('https://app.api-us.example.io', 'example.io:8443'), 'https_proxy');
  assert.equal(route('http://127.0.0.1:8787', '127.0.0.1:8787'), undefined);
  assert.equal(route('http://127.0.0.1:8787', '*'), undefined);
  assert.throws(
    () => readProxySettings({ HTTPS_PROXY: `http://${USER}:${PASSWORD}@` }),
    (/** @type {any} */ err) => {
      assert.equal(err.code, 'CONFIG_INVALID_PROXY');
      assert.ok(!err.message.includes(PASSWORD));
      return true;
    },
  );
  assert.deepEqual(proxySecrets({ HTTPS_PROXY: `http://${USER}:${ENCODED}@h:1` }), [
    `${USER}:${ENCODED}`,
    `${USER}:${PASSWORD}`,
    ENCODED,
    PASSWORD,
  ]);
});

test('NO_PROXY, case by case: the proxy a message names is the one undici routes through', async (t) => {
  // proxyFor() asks a probe of undici which agent it would pick, to name the proxy in messages; here
  // undici routes each request for real: a tunnel the proxy was asked for, or a direct answer.
  const asked = [];
  const proxy = new Server({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ hostname }) => {
      asked.push(hostname);
      return { requestAuthentication: true };
    },
  });
  await proxy.listen();
  t.after(() => proxy.close(true));
  const direct = createHttpServer((_req, res) => res.end('direct'));
  await new Promise((resolve) => direct.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => direct.close());
  const { port } = /** @type {import('node:net').AddressInfo} */ (direct.address());
  // Every name is this machine for a direct connection, so a request undici sends direct is answered.
  const lookup = (_host, options, done) =>
    options?.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4);
  const cases = [
    ['app.api-us.example.io', ''],
    ['app.api-us.example.io', 'localhost,.example.io'],
    ['app.api-us.example.io', 'example.io:1'],
    ['app.api-us.example.io', `example.io:${port}`],
    ['app.api-us.example.io', '*'],
    ['APP.Example.IO', 'example.io'],
    ['app.example.io', '*.example.io'],
    ['example.io.evil.test', 'example.io'],
    ['notexample.io', 'example.io'],
    ['localhost', '127.0.0.1'],
    ['127.0.0.1', ''],
    ['127.0.0.1', ' 127.0.0.1 '],
  ];
  for (const [host, noProxy] of cases) {
    const settings = { ...readProxySettings({ HTTP_PROXY: `http://127.0.0.1:${proxy.port}` }), noProxy };
    const target = new URL(`http://${host}:${port}/`);
    const dispatcher = createDispatcher({ connections: 1, timeoutMs: 5000, proxy: settings, lookup });
    const before = asked.length;
    const answer = await request(target, { dispatcher }).then(
      (r) => r.body.text(),
      (error) => error.code,
    );
    await dispatcher.close();
    const proxied = asked.length > before;
    assert.equal(proxied, answer !== 'direct', `${host} ${JSON.stringify(noProxy)}: ${answer}`);
    const named = proxyFor(target, settings) !== undefined;
    assert.equal(named, proxied, `${host} with NO_PROXY=${JSON.stringify(noProxy)}`);
  }
});

test('an import goes through HTTP_PROXY (a tunnel counted by the proxy); NO_PROXY bypasses it', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const { tunnels, url } = await startProxy(t);
  const dir = await fixtureWorkspace(sb.url);
  const through = await runCli(['import', '--json'], { cwd: dir, env: proxyEnv({ HTTP_PROXY: url() }) });
  assert.equal(through.code, 0, through.stderr);
  assert.equal(JSON.parse(through.stdout).status, 'completed');
  assert.ok(tunnels.length >= 1, 'no tunnel opened');
  assert.ok(
    tunnels.every((hostPort) => hostPort === new URL(sb.url).host),
    tunnels.join(),
  );
  assertNoCredentials(through);

  const opened = tunnels.length;
  const requests = sb.stats().requests;
  const bypass = await runCli(['import', '--json', '--fresh'], {
    cwd: dir,
    env: proxyEnv({ HTTP_PROXY: url(), NO_PROXY: 'localhost,127.0.0.1' }),
  });
  assert.equal(bypass.code, 0, bypass.stderr);
  assert.equal(tunnels.length, opened, 'NO_PROXY should bypass the proxy');
  assert.ok(sb.stats().requests > requests);
});

test('HTTPS through the proxy: a CONNECT tunnel, the certificate still verified end to end', async (t) => {
  const sb = await sandbox({ tls: 'self-signed' });
  t.after(() => sb.close());
  const { tunnels, url } = await startProxy(t);
  const dir = await fixtureWorkspace(sb.url);
  const ca = path.join(dir, 'ca.pem');
  await writeFile(ca, sb.certificate);
  // A process: Node reads NODE_EXTRA_CA_CERTS at start-up. The other runs here are in this process.
  const run = await runCliProcess(['import', '--json'], {
    cwd: dir,
    env: proxyEnv({ https_proxy: url(), NODE_EXTRA_CA_CERTS: ca }),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(tunnels.length >= 1);
  // Without the CA the tunnel opens, and the certificate is still refused, at once.
  const refused = await runCli(['import', '--json', '--fresh'], {
    cwd: dir,
    env: proxyEnv({ https_proxy: url() }),
  });
  assert.equal(refused.code, 1);
  const { message } = JSON.parse(refused.stdout).error;
  assert.match(message, /through the proxy http:\/\/127\.0\.0\.1:\d+ \(from https_proxy\) .*self-signed/);
});

test('a proxy that refuses the credentials or cannot be reached is named (never its credentials)', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const { proxy, url } = await startProxy(t);
  const dir = await fixtureWorkspace(sb.url);
  const wrong = await runCli(['import'], {
    cwd: dir,
    env: proxyEnv({ HTTP_PROXY: url(`${USER}:not-${ENCODED}@`) }),
  });
  assert.equal(wrong.code, 1);
  const proxyName = `the proxy http://127.0.0.1:${proxy.port} (from HTTP_PROXY)`;
  const escaped = proxyName.replace(/[().]/g, '\\$&');
  assert.match(wrong.stderr, new RegExp(`error: ${escaped} did not open a tunnel .*HTTP 407`));
  assert.match(wrong.stderr, /\n {2}the proxy wants credentials, or refused them: put them in HTTP_PROXY/);
  assert.equal(sb.stats().requests, 0);
  assertNoCredentials(wrong);

  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (closed.address());
  await new Promise((resolve) => closed.close(resolve));
  const env = proxyEnv({ HTTP_PROXY: `http://${USER}:${ENCODED}@127.0.0.1:${port}` });
  const unreachable = await runCli(['import', '--retries', '0'], { cwd: dir, env });
  assert.equal(unreachable.code, 1);
  const named = `cannot reach the proxy http://127\\.0\\.0\\.1:${port} \\(from HTTP_PROXY\\): ECONNREFUSED`;
  assert.match(unreachable.stderr, new RegExp(named));
  assertNoCredentials(unreachable);
});
