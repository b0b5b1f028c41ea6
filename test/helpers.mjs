// Shared test helpers: a real sandbox on a loopback port, real files, the built CLI as a child process.
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../dist/cli/main.js';
import { mulberry32, startSandbox } from '../dist/sandbox/index.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'chat-migrate.js');
export const FIXTURES = path.join(ROOT, 'fixtures');
/** A key long and odd enough that finding it anywhere in output is a real leak, not a coincidence. */
export const API_KEY = 'sk_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

/** @typedef {Omit<import('../dist/sandbox/index.js').SandboxHandle, 'records'> & { records(): any }} TestSandbox */

export async function tempDir(prefix = 'cm-test-') {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/**
 * A sandbox on port 0 that takes the tests' key. Its `records()` is typed `any` here: tests read the
 * stored JSON field by field, where the handle's type says only "an object, or true".
 * @param {Partial<import('../dist/sandbox/index.js').SandboxOptions>} [options]
 * @returns {Promise<TestSandbox>}
 */
export function sandbox(options = {}) {
  return startSandbox({ apiKey: API_KEY, port: 0, ...options });
}

/** Copies fixtures/ into a fresh folder and writes a config there pointing at the sandbox. */
export async function fixtureWorkspace(baseUrl, extra = {}) {
  const dir = await tempDir();
  // Not the run log a validate of fixtures/ by another test left there: each workspace starts its own.
  await cp(FIXTURES, dir, { recursive: true, filter: (from) => !from.endsWith('.runs.ndjson') });
  const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  await writeConfig(dir, { ...config, baseUrl, requestsPerMinute: 6000, ...extra });
  return dir;
}

/**
 * Writes a workspace's config. The tests' exports are dated 2020-2024, older than the service's default
 * retention window (retentionDays 180, whose messages import skips): unlimited here unless the config
 * says otherwise; `retentionDays: undefined` leaves the tool's default.
 */
export async function writeConfig(dir, config) {
  const text = JSON.stringify({ retentionDays: 0, ...config }, null, 2);
  await writeFile(path.join(dir, '.migrate.config.json'), text, { mode: 0o600 });
}

/**
 * Spawns the built CLI; the key comes from the environment, as the README recommends.
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string | undefined>, apiKey?: string }} [options]
 */
export function spawnCli(args, { cwd, env = {}, apiKey = API_KEY } = {}) {
  return spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: cliEnv(env, apiKey),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The environment every test run of the CLI gets: no colours, CI lines, the key from the environment. */
function cliEnv(env, apiKey) {
  const merged = { ...process.env, CI: 'true', NO_COLOR: '1', MIGRATE_API_KEY: apiKey, ...env };
  // As for a child process, a variable given as undefined is unset.
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
  return merged;
}

/** A stream that keeps what is written to it, as text. */
class TextSink extends Writable {
  text = '';
  /** @override */
  _write(chunk, _encoding, done) {
    this.text += chunk;
    done();
  }
}

/**
 * Runs the CLI in this process through its `main`, to the end; resolves with the exit code and output.
 * `signal` stands for Ctrl+C (aborting it is one), `clock` for the run's clock.
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string | undefined>, apiKey?: string, signal?: AbortSignal,
 *   clock?: import('../dist/clock.js').Clock, columns?: number }} [options]
 * @returns {Promise<{ code: number, signal: null, stdout: string, stderr: string }>}
 */
export async function runCli(args, { cwd = process.cwd(), env = {}, apiKey = API_KEY, signal, clock, columns } = {}) {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const io = { cwd, env: cliEnv(env, apiKey), stdout, stderr, signal, clock, columns };
  const code = await main(args, io);
  return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
}

/**
 * Runs the built CLI as a child process to the end: for what only a process shows (signals, the
 * environment Node itself reads such as NODE_EXTRA_CA_CERTS, exit on its own).
 * @param {string[]} args
 * @param {Parameters<typeof spawnCli>[1]} [options]
 */
export function runCliProcess(args, options = {}) {
  return collect(spawnCli(args, options));
}

export function collect(child) {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Resolves once `predicate` holds, checked every `everyMs`: for a state with no event to listen to (a
 * file appearing, a counter of the sandbox). The timeout only bounds a hang; its error says what was awaited.
 * @param {() => unknown} predicate
 * @param {{ timeoutMs?: number, everyMs?: number, what?: string }} [options]
 */
export async function waitFor(predicate, { timeoutMs = 20_000, everyMs = 10, what = 'condition' } = {}) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not met within ${timeoutMs} ms`);
}

/**
 * Resolves once the sandbox has counted `n` requests: all of them as they arrive, or with `entity`
 * that entity's import requests as they are answered (the sandbox counts those once the latency is
 * over). `sb.stats()` may answer a promise (a sandbox in a child process, through its stats endpoint).
 * @param {{ stats(): any }} sb
 * @param {number} n
 * @param {{ entity?: string, timeoutMs?: number }} [options]
 */
export function waitForRequests(sb, n, { entity, timeoutMs = 30_000 } = {}) {
  const counted = async () => {
    const stats = await sb.stats();
    return entity ? stats.perEntity[entity].requests : stats.requests;
  };
  const what = `${n} ${entity ? `${entity} requests answered` : 'requests'} by the sandbox`;
  return waitFor(async () => (await counted()) >= n, { timeoutMs, what, everyMs: 5 });
}

/**
 * Resolves with the match once the child's `stream` output (from now on) matches `pattern`; rejects
 * when the child ends first, or after `timeoutMs`, with what it wrote, so the failure says why.
 * @param {import('node:child_process').ChildProcess} child
 * @param {RegExp} pattern
 * @param {{ stream?: 'stdout' | 'stderr', timeoutMs?: number }} [options]
 * @returns {Promise<RegExpExecArray>}
 */
export function waitForOutput(child, pattern, { stream = 'stderr', timeoutMs = 30_000 } = {}) {
  const source = /** @type {import('node:stream').Readable} */ (child[stream]);
  let text = '';
  return new Promise((resolve, reject) => {
    const finish = (/** @type {() => void} */ settle) => {
      clearTimeout(timer);
      source.off('data', onData);
      child.off('close', onClose);
      settle();
    };
    const onData = (/** @type {Buffer} */ d) => {
      text += d;
      const match = pattern.exec(text);
      if (match) finish(() => resolve(match));
    };
    const fail = (/** @type {string} */ why) =>
      finish(() => reject(new Error(`${stream} never matched ${pattern} (${why}); it read:\n${text}`)));
    const onClose = () => fail('the process ended');
    const timer = setTimeout(() => fail(`not within ${timeoutMs} ms`), timeoutMs);
    source.on('data', onData);
    child.on('close', onClose);
  });
}

export async function readNdjson(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Writes a generated export of all four entities as NDJSON/CSV: n users, g groups, members, m messages. */
export async function writeGeneratedExport(
  dir,
  { users = 200, groups = 10, membersPerGroup = 20, messages = 2000 } = {},
) {
  const base = 1_650_000_000;
  const u = [];
  for (let i = 0; i < users; i++) u.push(JSON.stringify({ uid: `user${i}`, name: `User ${i} ✓`, createdAt: base + i }));
  await writeFile(path.join(dir, 'users.ndjson'), `${u.join('\n')}\n`);
  const g = ['guid,name,type,owner,createdAt'];
  for (let i = 0; i < groups; i++)
    g.push(`grp${i},"Group ${i}, the best",public,user${i % users},${base + 10_000 + i}`);
  await writeFile(path.join(dir, 'groups.csv'), `${g.join('\n')}\n`);
  const m = [];
  for (let i = 0; i < groups; i++) {
    for (let k = 0; k < membersPerGroup; k++)
      m.push(
        JSON.stringify({
          guid: `grp${i}`,
          uid: `user${(i * 7 + k) % users}`,
          scope: 'participant',
          joinedAt: base + 20_000 + k,
        }),
      );
  }
  await writeFile(path.join(dir, 'members.ndjson'), `${m.join('\n')}\n`);
  const msgs = [];
  for (let i = 0; i < messages; i++) {
    msgs.push(
      JSON.stringify({
        muid: `msg${i}`,
        sender: `user${i % users}`,
        receiverType: 'group',
        receiver: `grp${i % groups}`,
        sentAt: base + 30_000 + i,
        category: 'message',
        type: 'text',
        data: { text: `hello ${i}` },
      }),
    );
  }
  await writeFile(path.join(dir, 'messages.ndjson'), `${msgs.join('\n')}\n`);
  return {
    counts: { users, groups, members: groups * Math.min(membersPerGroup, users), messages },
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.csv' },
      members: { path: 'members.ndjson' },
      messages: { path: 'messages.ndjson' },
    },
  };
}

/** A folder holding a generated export and a config that sends it to `sb` over 2 connections, unthrottled. */
export async function generatedWorkspace(sb, sizes) {
  const dir = await tempDir();
  const { counts, sources } = await writeGeneratedExport(dir, sizes);
  await writeConfig(dir, { baseUrl: sb.url, sources, concurrency: 2, requestsPerMinute: 1e9 });
  return { dir, counts };
}

/**
 * An export whose messages are spread over `files` small NDJSON files (messages/part-NNNN.ndjson, read
 * in that order) of 1-9 messages each, seeded; users, groups and members in one file each.
 */
export async function writeManyFilesExport(
  dir,
  { files = 60, users = 40, groups = 4, membersPerGroup = 10, seed = 14 } = {},
) {
  const base = 1_650_000_000;
  const lines = (records) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
  const u = Array.from({ length: users }, (_, i) => ({ uid: `user${i}`, name: `User ${i}`, createdAt: base + i }));
  await writeFile(path.join(dir, 'users.ndjson'), lines(u));
  const g = Array.from({ length: groups }, (_, i) => ({
    guid: `grp${i}`,
    name: `Group ${i}`,
    type: 'public',
    createdAt: base + 10_000 + i,
  }));
  await writeFile(path.join(dir, 'groups.ndjson'), lines(g));
  const m = [];
  for (let i = 0; i < groups; i++) {
    for (let k = 0; k < membersPerGroup; k++) {
      m.push({ guid: `grp${i}`, uid: `user${(i * 7 + k) % users}`, joinedAt: base + 20_000 + k });
    }
  }
  await writeFile(path.join(dir, 'members.ndjson'), lines(m));
  await mkdir(path.join(dir, 'messages'));
  const random = mulberry32(seed);
  let messages = 0;
  for (let f = 0; f < files; f++) {
    const day = [];
    for (let n = 1 + Math.floor(random() * 9); n > 0; n--, messages++) {
      day.push({
        muid: `msg${messages}`,
        sender: `user${messages % users}`,
        receiverType: 'group',
        receiver: `grp${messages % groups}`,
        sentAt: base + 30_000 + messages,
        category: 'message',
        type: 'text',
        data: { text: `hello ${messages}` },
      });
    }
    await writeFile(path.join(dir, 'messages', `part-${String(f).padStart(4, '0')}.ndjson`), lines(day));
  }
  return {
    counts: { users, groups, members: groups * Math.min(membersPerGroup, users), messages },
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.ndjson' },
      members: { path: 'members.ndjson' },
      messages: { path: 'messages/*.ndjson' },
    },
  };
}

/** An NDJSON line of a text message `m<i>` from alice to group g1 (`extra` fields replace or add). */
export const messageLine = (i, extra = {}) =>
  JSON.stringify({
    muid: `m${i}`,
    sender: 'alice',
    receiverType: 'group',
    receiver: 'g1',
    sentAt: 1_700_000_000 + i,
    category: 'message',
    type: 'text',
    data: { text: `hello ${i}` },
    ...extra,
  });
