// What the package ships, cheaply (no install: test/package.test.mjs installs it): no test double. The
// vendor fakes live in test/fakes/, and nothing in the build serves or names their control routes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../helpers.mjs';

const run = promisify(execFile);

test('npm pack ships no fake of a live source', async () => {
  // --ignore-scripts: the build is `npm run build`'s; a prepack here would delete dist/ under other tests.
  const packed = await run('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: ROOT });
  const [{ files }] = JSON.parse(packed.stdout);
  const names = files.map((f) => f.path);
  assert.ok(names.includes('dist/cli/main.js'), 'the build ships');
  assert.deepEqual(
    names.filter((n) => /fake|sandbox\/sources|^test\//.test(n)),
    [],
    'no fake, by name',
  );
  const code = names.filter((n) => n.endsWith('.js'));
  const holding = [];
  for (const name of code) if ((await readFile(path.join(ROOT, name), 'utf8')).includes('/__fake/')) holding.push(name);
  assert.deepEqual(holding, [], "no fake's control routes in the code that ships");
});
