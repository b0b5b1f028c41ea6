// Imports over TLS on loopback: the sandbox serves HTTPS, the CLI trusts a CA only through
// NODE_EXTRA_CA_CERTS, and a certificate it cannot accept stops the run at once, without retries,
// naming the host, the reason and the fix.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { generate } from 'selfsigned';
import { classifyTransport, DEFAULT_RETRY_POLICY } from '../../dist/http/retry-policy.js';
import { fixtureWorkspace, runCli, runCliProcess, sandbox, spawnCli } from '../helpers.mjs';

const DAY = 86_400_000;
const LOOPBACK_NAMES = {
  name: 'subjectAltName',
  altNames: [
    { type: 7, ip: '127.0.0.1' },
    { type: 2, value: 'localhost' },
  ],
};

/**
 * A leaf certificate (and key) for `altNames`, signed by `ca` or by itself.
 * @param {{ names?: any, ca?: any, notBeforeDate?: Date, notAfterDate?: Date }} [options]
 */
async function leaf({ names = LOOPBACK_NAMES, ca, notBeforeDate, notAfterDate } = {}) {
  const pems = await generate([{ name: 'commonName', value: 'test server' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [names],
    ca,
    notBeforeDate,
    notAfterDate,
  });
  return { cert: pems.cert, key: pems.private };
}

async function privateCa() {
  const pems = await generate([{ name: 'commonName', value: 'Test Corp Root CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** A sandbox serving `tls`, a workspace importing the fixtures into it, and `trust(pem)` to write a CA file. */
async function tlsSetup(t, tls) {
  const sb = await sandbox({ tls });
  t.after(() => sb.close());
  const dir = await fixtureWorkspace(sb.url);
  const trust = async (pem) => {
    const file = path.join(dir, 'ca.pem');
    await writeFile(file, pem);
    return file;
  };
  return { sb, dir, trust, host: new URL(sb.url).host };
}

/**
 * Runs an import; NODE_EXTRA_CA_CERTS is only what the test gives (the machine's own is left out). Node
 * reads it at start-up, so a run that trusts a CA is a process; one that trusts none runs in this one.
 */
async function importTrusting(dir, ca, args = []) {
  const importArgs = ['import', '--json', ...args];
  const run = ca
    ? await runCliProcess(importArgs, { cwd: dir, env: { NODE_EXTRA_CA_CERTS: ca } })
    : await runCli(importArgs, { cwd: dir });
  return { ...run, summary: run.stdout ? JSON.parse(run.stdout) : undefined };
}

/** A refused run: exit 1 with no retry (8 are allowed), nothing reached the sandbox. */
function assertRefusedAtOnce(run, sb) {
  assert.equal(run.code, 1, run.stderr);
  assert.equal(sb.stats().requests, 0);
  assert.equal(run.summary.totals.retries, 0);
}

test('which transport failures stop the run is data in the retry policy', () => {
  const kinds = [
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'CERT_HAS_EXPIRED',
    'ECONNRESET',
    'ECONNREFUSED',
    undefined,
  ].map((code) => classifyTransport(DEFAULT_RETRY_POLICY, { code }));
  assert.deepEqual(kinds, ['fatal', 'fatal', 'fatal', 'fatal', 'fatal', 'retry', 'retry', 'retry']);
  assert.equal(classifyTransport(DEFAULT_RETRY_POLICY, { code: 'UND_ERR_ABORTED', proxyStatus: 407 }), 'fatal');
  assert.equal(classifyTransport(DEFAULT_RETRY_POLICY, { code: 'UND_ERR_ABORTED', proxyStatus: 502 }), 'retry');
  const lenient = { ...DEFAULT_RETRY_POLICY, fatalTransportCodes: [], fatalProxyStatuses: [] };
  assert.equal(classifyTransport(lenient, { code: 'CERT_HAS_EXPIRED' }), 'retry');
  assert.equal(classifyTransport(lenient, { proxyStatus: 407 }), 'retry');
});

test('an import over TLS with the self-signed sandbox certificate trusted through NODE_EXTRA_CA_CERTS', async (t) => {
  const { sb, dir, trust } = await tlsSetup(t, 'self-signed');
  assert.match(sb.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const run = await importTrusting(dir, await trust(sb.certificate));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.summary.status, 'completed');
  assert.equal(run.summary.totals.imported, run.summary.totals.read - run.summary.totals.skipped);
  assert.equal(Object.keys(sb.records().users).length, 40);
});

test('without the CA, a self-signed certificate stops the run at once, naming host, reason and fix', async (t) => {
  const { sb, dir, host } = await tlsSetup(t, 'self-signed');
  const run = await importTrusting(dir, undefined);
  assertRefusedAtOnce(run, sb);
  assert.equal(run.summary.error.code, 'REMOTE_TLS_UNTRUSTED');
  assert.equal(
    run.summary.error.message,
    `TLS: the certificate of ${host} is refused: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)`,
  );
  assert.match(run.summary.error.hint, /NODE_EXTRA_CA_CERTS=\/path\/ca\.pem/);
  // The same words on a terminal, with the hint under the message.
  const text = await runCli(['import'], { cwd: dir });
  assert.equal(text.code, 1);
  assert.match(text.stderr, new RegExp(`error: TLS: the certificate of ${host} is refused: it is self-signed`));
  assert.match(text.stderr, /\n {2}chat-migrate always verifies certificates\. .* NODE_EXTRA_CA_CERTS=\/path\/ca\.pem/);
});

test('an untrusted certificate ends verify, undo and import alike: the same code, at once', async (t) => {
  const { sb, dir, trust } = await tlsSetup(t, 'self-signed');
  // A trusted import first: undo needs what it created, verify what it sent.
  assert.equal((await importTrusting(dir, await trust(sb.certificate))).code, 0);
  const requests = sb.stats().requests;
  for (const args of [['verify'], ['undo', '--yes'], ['import', '--fresh']]) {
    const run = await runCli(args, { cwd: dir });
    assert.equal(run.code, 1, `${args[0]}: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /retrying/, args[0]);
    assert.match(
      run.stderr,
      /error: TLS: the certificate of .* is refused: it is self-signed .*\[REMOTE_TLS_UNTRUSTED\]/,
    );
    assert.match(run.stderr, /NODE_EXTRA_CA_CERTS=\/path\/ca\.pem/);
  }
  assert.equal(sb.stats().requests, requests);
});

test('a certificate from a private CA: trusted with that CA, refused as "unknown CA" without it', async (t) => {
  const ca = await privateCa();
  const { sb, dir, trust, host } = await tlsSetup(t, await leaf({ ca }));
  const refused = await importTrusting(dir, undefined);
  assertRefusedAtOnce(refused, sb);
  assert.match(refused.summary.error.message, new RegExp(`of ${host} is refused: it is signed by an unknown CA`));
  const trusted = await importTrusting(dir, await trust(ca.cert), ['--fresh']);
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(Object.keys(sb.records().users).length, 40);
});

test('a trusted certificate for another host, or an expired one, is refused at once with the reason', async (t) => {
  const other = await leaf({ names: { name: 'subjectAltName', altNames: [{ type: 2, value: 'chat.example.test' }] } });
  const mismatch = await tlsSetup(t, other);
  const run = await importTrusting(mismatch.dir, await mismatch.trust(other.cert));
  assertRefusedAtOnce(run, mismatch.sb);
  assert.equal(run.summary.error.code, 'REMOTE_TLS_NAME_MISMATCH');
  assert.match(
    run.summary.error.message,
    /name mismatch, it is for another host \(ERR_TLS_CERT_ALTNAME_INVALID; it names DNS:chat\.example\.test\)/,
  );

  const now = Date.now();
  const old = await leaf({ notBeforeDate: new Date(now - 30 * DAY), notAfterDate: new Date(now - DAY) });
  const expired = await tlsSetup(t, old);
  const late = await importTrusting(expired.dir, await expired.trust(old.cert));
  assertRefusedAtOnce(late, expired.sb);
  assert.equal(late.summary.error.code, 'REMOTE_TLS_EXPIRED');
  const expiredMessage = `of ${expired.host} is refused: it has expired \\(CERT_HAS_EXPIRED\\)`;
  assert.match(late.summary.error.message, new RegExp(expiredMessage));
});

test('`sandbox --tls` writes its certificate and says where; --tls-cert/--tls-key serve a given pair', async (t) => {
  const start = async (args) => {
    const child = spawnCli(['sandbox', '--port', '0', '--json', ...args]);
    t.after(() => child.kill('SIGTERM'));
    const [line] = await once(child.stdout, 'data');
    return JSON.parse(String(line));
  };
  const made = await start(['--tls']);
  assert.match(made.url, /^https:\/\//);
  assert.match(made.ca, /sandbox-ca\.pem$/);
  // The certificate names localhost too.
  const dir = await fixtureWorkspace(made.url.replace('127.0.0.1', 'localhost'));
  const run = await importTrusting(dir, made.ca);
  assert.equal(run.code, 0, run.stderr);

  const ca = await privateCa();
  const pair = await leaf({ ca });
  await writeFile(path.join(dir, 'server.pem'), pair.cert);
  await writeFile(path.join(dir, 'server-key.pem'), pair.key, { mode: 0o600 });
  const [cert, key] = [path.join(dir, 'server.pem'), path.join(dir, 'server-key.pem')];
  const given = await start(['--tls-cert', cert, '--tls-key', key]);
  assert.equal(given.ca, undefined);
  const dir2 = await fixtureWorkspace(given.url);
  await writeFile(path.join(dir2, 'corp-ca.pem'), ca.cert);
  const second = await importTrusting(dir2, path.join(dir2, 'corp-ca.pem'));
  assert.equal(second.code, 0, second.stderr);
});
