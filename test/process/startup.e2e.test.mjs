// What a command loads before it does anything: `--version` and `--help` read main.ts, the command
// table and commander, never a command's run (pipeline, HTTP, readers). Counted by a resolve hook
// (test/count-modules.mjs) in the built CLI; run after `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { API_KEY, fixtureWorkspace, sandbox } from '../helpers.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = pathToFileURL(path.join(ROOT, 'dist')).href;
const COUNTER = path.join(ROOT, 'test', 'count-modules.mjs');
const BIN = path.join(ROOT, 'bin', 'chat-migrate.js');

/** Runs the CLI with the counter; resolves with its output and the project modules and packages it loaded. */
async function loadedBy(args, cwd) {
  const dir = await mkdtemp(path.join(tmpdir(), 'cm-startup-'));
  const log = path.join(dir, 'modules.log');
  try {
    const child = spawn(process.execPath, ['--import', COUNTER, BIN, ...args], {
      cwd: cwd ?? dir,
      env: { ...process.env, CI: 'true', NO_COLOR: '1', COUNT_MODULES_LOG: log, MIGRATE_API_KEY: API_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    const urls = new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean));
    const own = [...urls].filter((u) => u.startsWith(`${DIST}/`)).map((u) => u.slice(DIST.length + 1));
    const packages = new Set();
    for (const u of urls) {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
      if (m) packages.add(m[1]);
    }
    return { code, stdout, stderr, own: own.sort(), packages: [...packages].sort() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What `--version` and `--help` may load: main.ts with what a command gets from its caller
 * (cli/context.ts), the command table (cli/commands.ts) and what the flags are made of (cli/options.ts,
 * cli/arg-parsers.ts, the config key table in config/keys.ts with its pull keys in config/pull-keys.ts,
 * and the example values it shows, the systems' names in systems/registry.ts, errors), none of a
 * command's own.
 */
const MAX_MODULES = 19;
const FLAG_MODULES = new RegExp(
  '^(cli/(main|context|commands|options|arg-parsers|fatal-error)|config/[\\w-]+|entities/(types|timestamps)|errors|' +
    'sandbox/default-key|systems/registry)\\.js$',
);

test('--version loads a handful of modules and no package but commander', async () => {
  const { code, stdout, stderr, own, packages } = await loadedBy(['--version']);
  const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(code, 0, stderr);
  assert.equal(stdout.trim(), version);
  assert.ok(own.includes('cli/main.js'), 'the counter sees the modules of dist/: else this test proves nothing');
  assert.ok(own.length <= MAX_MODULES, `${own.length} modules of dist/: ${own.join(', ')}`);
  assert.deepEqual(
    own.filter((m) => !FLAG_MODULES.test(m)),
    [],
  );
  assert.deepEqual(packages, ['commander']);
});

test("a command's --help reads its options from the table, not the command's module", async () => {
  const { code, stdout, stderr, own, packages } = await loadedBy(['import', '--help']);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /--batch-size <n>/);
  assert.ok(own.length <= MAX_MODULES, `${own.length} modules of dist/: ${own.join(', ')}`);
  assert.deepEqual(packages, ['commander']);
});

test('an import and a verify without media or TLS load neither the AWS SDK nor selfsigned', async (t) => {
  // The bundled fixtures (no media key) into a sandbox on plain HTTP, then verified.
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await fixtureWorkspace(sb.url);
  for (const [command, module] of [
    ['import', 'pipeline/import/import-in-run.js'],
    ['verify', 'pipeline/verify/verify-in-run.js'],
  ]) {
    const { code, stderr, own, packages } = await loadedBy([command, '--json'], dir);
    assert.equal(code, 0, stderr);
    assert.ok(own.includes(module), `${command} ran: ${own.length} modules`);
    assert.ok(packages.includes('undici'), packages.join(', '));
    assert.deepEqual(
      packages.filter((p) => p.startsWith('@aws-sdk/') || p === 'selfsigned'),
      [],
    );
  }
});
