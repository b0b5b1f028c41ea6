// The published package works on its own: `npm pack`, install the tarball into a fresh prefix, run it there.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { collect, ROOT, tempDir } from '../helpers.mjs';

const run = promisify(execFile);

/** What may ship: the CLI, its build, the demo's own fixtures and the usual top-level files. */
const TOP_LEVEL = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', '.migrate.config.example.json'];
const shipped = (name) => TOP_LEVEL.includes(name) || /^(bin|dist)\//.test(name) || /^fixtures\/[^/]+$/.test(name);

/** Runs the installed CLI from a folder outside the repository, so nothing can come from the checkout. */
function runInstalled(bin, args, cwd) {
  const env = { ...process.env, CI: 'true', NO_COLOR: '1' };
  return collect(spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

test('npm pack gives a package that installs elsewhere and runs --version and demo', { timeout: 120_000 }, async () => {
  const dir = await tempDir('cm-pack-');
  try {
    // --ignore-scripts: `npm test` has just built dist/, and a rebuild here would rewrite files that
    // tests running alongside are loading.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
    const [{ filename, files }] = JSON.parse(packed.stdout);
    const names = files.map((f) => f.path);
    assert.deepEqual(
      names.filter((n) => !shipped(n)),
      [],
      'only the CLI, its build and the demo ship',
    );
    assert.ok(names.includes('LICENSE') && names.includes('CHANGELOG.md'), 'LICENSE and CHANGELOG.md ship');
    assert.ok(names.includes('dist/cli/main.js.map'), 'source maps ship');

    const prefix = path.join(dir, 'prefix');
    const args = ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund'];
    await run('npm', [...args, path.join(dir, filename)], { cwd: dir });
    const installed = path.join(prefix, 'lib', 'node_modules');
    assert.ok(!(await readdir(installed)).includes('typescript'), 'no build tool is needed to install');
    const bin = path.join(prefix, 'bin', 'chat-migrate');

    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    const v = await runInstalled(bin, ['--version'], dir);
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stdout.trim(), version);

    // The maps are found by Node for anyone who runs with --enable-source-maps (say, for a bug report).
    const errorsJs = pathToFileURL(path.join(installed, 'chat-migrate', 'dist', 'errors.js')).href;
    const probe =
      `import(${JSON.stringify(errorsJs)}).then(() => console.log(require('node:module')` +
      `.findSourceMap(${JSON.stringify(errorsJs)})?.payload.sources.join()))`;
    const mapped = await run(process.execPath, ['--enable-source-maps', '-e', probe]);
    assert.match(mapped.stdout, /src\/errors\.ts/);

    const demo = await runInstalled(bin, ['demo'], dir);
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stdout, /Done in [\d.]+s: every record is in\./);
    assert.match(demo.stdout, /The sandbox now holds 40 users, 8 groups, 65 members, 358 messages\./);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
