// The terminal a person watches: a real pseudo-terminal from util-linux `script`, the CLI inside it,
// and Ctrl+C sent as the key (a 0x03 byte through the terminal), not as a signal from outside.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { API_KEY, BIN, generatedWorkspace, runCli, sandbox, waitFor } from './helpers.mjs';

/** Output beyond this is a flood, not progress: the run is stopped and the test fails. */
const MAX_OUTPUT = 2 * 1024 * 1024;

/**
 * Runs the CLI in a pseudo-terminal of `cols` x `rows` (0 x 0 when not given); `ctrlC()` presses the key.
 * @param {string[]} args
 * @param {{ cwd: string, cols?: number, rows?: number }} options
 */
function inTerminal(args, { cwd, cols, rows }) {
  const quote = (word) => `'${word.replaceAll("'", "'\\''")}'`;
  const size = cols ? `stty cols ${cols} rows ${rows}; ` : '';
  const command = `${size}exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, MIGRATE_API_KEY: API_KEY, TERM: 'xterm' };
  delete env.CI; // a person at a terminal, even when the tests run in CI
  delete env.NO_COLOR;
  const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  // A run that does not end (a bar left running keeps the process alive) fails here, not at the runner's timeout.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
  child.stdout.on('data', (d) => {
    output += d;
    if (output.length > MAX_OUTPUT) child.kill('SIGKILL');
  });
  child.stderr.on('data', (d) => (output += d));
  return { done, ctrlC: () => child.stdin.write('\x03'), output: () => output };
}

const workspace = (sb, messages) => generatedWorkspace(sb, { users: 60, groups: 3, membersPerGroup: 10, messages });

test('in a terminal: a bar per phase with rate and ETA; Ctrl+C stops cleanly, shows the cursor again, says how to resume', async () => {
  const sb = await sandbox({ latencyMs: 150 });
  try {
    const { dir, counts } = await workspace(sb, 3000);
    const run = inTerminal(['import'], { cwd: dir, cols: 120, rows: 40 });
    await waitFor(() => sb.stats().perEntity.messages.requests >= 2, { timeoutMs: 30_000 });
    run.ctrlC();
    const { code, output } = await run.done;
    assert.equal(code, 130, output.slice(-2000));
    // What the terminal showed, for a failure to be read from the test's output alone.
    const shown = JSON.stringify(output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').slice(-3000));
    // Bars, not lines: a finished phase's bar stays with its count; the running one has rate and ETA.
    assert.match(output, /users {5}█{24} 60\/60 records \| [\d.]+ rec\/s \| 60 imported, 0 rejected \| ETA 0s/, shown);
    assert.match(output, /messages  [█░]{24} \d+\/3000 records \| [\d.]+ rec\/s \| \d+ imported, 0 rejected \| ETA \d+(s|m\d+s)/, shown);
    assert.doesNotMatch(output, /\[messages\] started/, shown);
    assert.match(output, /stopping: finishing the batches in flight/, shown);
    assert.match(output, /run the same command again to resume/, shown);
    // The bars hide the cursor; it is shown again after the last time it was hidden.
    assert.ok(output.lastIndexOf('\x1b[?25h') > output.lastIndexOf('\x1b[?25l'), 'cursor shown again');
    assert.ok(!output.includes(API_KEY));

    const resumed = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(sb.stats().perEntity.messages.stored, counts.messages);
  } finally {
    await sb.close();
  }
});

test('a terminal that reports no size gets plain progress lines, not a flood of redraws', async () => {
  const sb = await sandbox({ latencyMs: 20 });
  try {
    const { dir, counts } = await workspace(sb, 500);
    const { code, output } = await inTerminal(['import'], { cwd: dir }).done;
    assert.equal(code, 0, output.slice(-2000));
    assert.ok(output.length < 20_000, `${output.length} bytes of output`);
    assert.match(output, /\[messages\] started/);
    assert.ok(!output.includes('\x1b[?25l'), 'no cursor tricks');
    assert.equal(sb.stats().perEntity.messages.stored, counts.messages);
  } finally {
    await sb.close();
  }
});
