// Child processes of the bench: every measured program runs in its own process (so its peak RSS is
// its own), started with report-rss.mjs preloaded, and timed from spawn to exit.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'chat-migrate.js');
export const BENCH = path.join(ROOT, 'bench');
export const RUN_DIR = path.join(BENCH, 'data', 'run');
export const SANDBOX_KEY = 'bench-sandbox-key';
const REPORT_RSS = path.join(BENCH, 'report-rss.mjs');

let serial = 0;

/**
 * Writes `dir`/.migrate.config.json for a bench run: checkpoint and rejects in `dir`, unthrottled, every
 * message sent (the generated ones are years old: the default window would skip them), then `settings`.
 * `keep`: the folder's checkpoint stays (a run resumed or repeated); otherwise the folder starts empty.
 */
export function writeBenchConfig(dir, settings, { keep = false } = {}) {
  if (!keep) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, '.migrate.config.json');
  const full = {
    requestsPerMinute: 1e9,
    retentionDays: 0,
    checkpoint: path.join(dir, 'checkpoint.json'),
    rejects: path.join(dir, 'rejects.ndjson'),
    ...settings,
  };
  writeFileSync(file, JSON.stringify(full, null, 2), { mode: 0o600 });
  return file;
}

/**
 * Runs `node [nodeFlags] --import report-rss.mjs script ...args` to the end.
 * Resolves { code, signal, stdout, stderr, ms, rss: {maxRssBytes, userCpuMs, systemCpuMs} | undefined }.
 */
export function runNode(script, args, { env = {}, cwd = ROOT, nodeFlags = [], timeoutMs = 30 * 60_000 } = {}) {
  mkdirSync(RUN_DIR, { recursive: true });
  const rssFile = path.join(RUN_DIR, `rss-${process.pid}-${++serial}.json`);
  rmSync(rssFile, { force: true });
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeFlags, '--import', REPORT_RSS, script, ...args], {
    cwd,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env, BENCH_RSS_FILE: rssFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ code, signal, stdout, stderr, ms, rss: readRss(rssFile) });
    });
  });
}

function readRss(file) {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  } finally {
    rmSync(file, { force: true });
  }
}

/** Parses the last JSON line of a child's stdout; throws with the child's stderr when there is none. */
export function lastJson(result, what) {
  const lines = result.stdout.trim().split('\n').filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      return JSON.parse(lines[i]);
    } catch {
      // not this line
    }
  }
  throw new Error(`${what}: no JSON result (exit ${result.code ?? result.signal}): ${result.stderr.slice(-2000)}`);
}

/**
 * Starts `chat-migrate sandbox` in its own process and resolves once it listens.
 * Returns { url, stats(), stop() }; stop() resolves with the sandbox process's peak RSS report.
 * @param {{ requestsPerMinute?: number, latencyMs?: number, nodeFlags?: string[], keepRecords?: boolean }} [options]
 */
export async function startSandboxChild({ requestsPerMinute, latencyMs, nodeFlags = [], keepRecords = false } = {}) {
  // Records are kept only where they are read back (verify): ids alone keep a million-record sandbox small.
  const keep = keepRecords ? [] : ['--no-keep-records'];
  const args = ['--json', ...keep, '--api-key', SANDBOX_KEY];
  if (requestsPerMinute) args.push('--requests-per-minute', String(requestsPerMinute));
  if (latencyMs) args.push('--latency-ms', String(latencyMs));
  const child = await startListening([BIN, 'sandbox', '--port', '0', ...args], nodeFlags, 'sandbox');
  return {
    url: child.first.url,
    /** @returns {Promise<import('../dist/sandbox/types.js').SandboxStats>} */
    async stats() {
      const res = await fetch(`${child.first.url}/__sandbox/stats`);
      return /** @type {any} */ (await res.json());
    },
    stop: child.stop,
  };
}

/**
 * Starts a live source's fake (test/fakes/, built here first) in its own process; resolves with the line
 * it prints (`url`, `env`...), `stats()` and `stop()`.
 * @param {string} source
 * @param {Omit<import('../test/fakes/dist/index.js').FakeServerOptions, 'source'>} [options]
 */
export async function startFakeChild(source, options = {}) {
  buildFakes();
  const script = path.join(BENCH, 'fake-child.mjs');
  const child = await startListening([script, source, JSON.stringify(options)], [], `fake ${source}`);
  return {
    ...child.first,
    async stats() {
      return (await fetch(`${child.first.url}/__fake/stats`)).json();
    },
    stop: child.stop,
  };
}

let fakesBuilt = false;
/** The fakes are TypeScript beside the tests, built against dist/ (their own small tsconfig). */
function buildFakes() {
  if (fakesBuilt) return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'test/fakes'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  fakesBuilt = true;
}

/** `node ...args` (a script and its arguments) in its own process, once it printed its first line (JSON). */
async function startListening(args, nodeFlags, what) {
  mkdirSync(RUN_DIR, { recursive: true });
  const rssFile = path.join(RUN_DIR, `rss-sandbox-${process.pid}-${++serial}.json`);
  const child = spawn(process.execPath, [...nodeFlags, '--import', REPORT_RSS, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', BENCH_RSS_FILE: rssFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const closed = new Promise((resolve) => child.on('close', resolve));
  const first = await new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => {
      out += d;
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      child.stdout.off('data', onData);
      try {
        resolve(JSON.parse(out.slice(0, newline)));
      } catch (error) {
        reject(new Error(`${what} printed ${out.slice(0, 200)}: ${error.message}`));
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.on('error', reject);
    closed.then((code) => reject(new Error(`${what} exited (${code}) before listening: ${stderr.slice(-1000)}`)));
  });
  return {
    first,
    /** Resolves with the process's peak RSS report. */
    async stop() {
      child.kill('SIGTERM');
      await closed;
      return readRss(rssFile);
    },
  };
}

function cpuTimes() {
  // First line of /proc/stat: cpu user nice system idle iowait irq softirq steal ...
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  return { idle, total: fields.reduce((a, b) => a + b, 0) };
}

/** Share of all CPUs busy over `ms` (Linux; undefined elsewhere). Between measurements that is other people's work. */
export async function machineBusy(ms = 500) {
  if (!existsSync('/proc/stat')) return undefined;
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  const total = b.total - a.total;
  return total > 0 ? 1 - (b.idle - a.idle) / total : 0;
}

/**
 * Other processes share this machine (tests, builds): waits up to `maxMs` for the CPUs to be
 * mostly idle before a measurement, and returns the busy share seen last, for the record.
 * @param {{ threshold?: number, maxMs?: number, log?: (line: string) => void }} [options]
 */
export async function waitForQuiet({ threshold = 0.15, maxMs = 60_000, log = () => {} } = {}) {
  const until = Date.now() + maxMs;
  let busy = await machineBusy();
  if (busy === undefined || busy <= threshold) return busy;
  log(
    `machine busy (${Math.round(busy * 100)}% CPU by other processes): ` +
      `waiting up to ${maxMs / 1000} s for it to settle`,
  );
  while (busy > threshold && Date.now() < until) busy = await machineBusy(1000);
  return busy;
}

/** CPU seconds the whole machine spent busy so far, and the wall clock: diff two to get others' load. */
export function cpuSnapshot() {
  if (!existsSync('/proc/stat')) return undefined;
  const { idle, total } = cpuTimes();
  return { busySeconds: (total - idle) / 100, at: Date.now() };
}

/**
 * Share of the machine's CPU capacity used by processes other than ours between two snapshots
 * (USER_HZ is 100 on Linux), given the CPU seconds our processes used meanwhile.
 */
export function othersShare(before, after, ourCpuSeconds, cpuCount) {
  if (!before || !after || !Number.isFinite(ourCpuSeconds)) return undefined;
  const capacity = ((after.at - before.at) / 1000) * cpuCount;
  if (capacity <= 0) return undefined;
  return Math.max(0, Math.min(1, (after.busySeconds - before.busySeconds - ourCpuSeconds) / capacity));
}
