// A real pseudo-terminal from util-linux `script`, the CLI inside it, and Ctrl+C sent as the key
// (a 0x03 byte through the terminal), not as a signal from outside.
import { spawn } from 'node:child_process';
import { API_KEY, BIN } from './helpers.mjs';

/** Output beyond this is a flood, not progress: the run is stopped and the test fails. */
const MAX_OUTPUT = 2 * 1024 * 1024;

/**
 * Runs the CLI in a pseudo-terminal of `cols` x `rows` (0 x 0 when not given); `ctrlC()` presses the key.
 * `env` is added to a person's environment: no CI, no NO_COLOR unless given.
 * @param {string[]} args
 * @param {{ cwd: string, cols?: number, rows?: number, env?: Record<string, string> }} options
 */
export function inTerminal(args, { cwd, cols, rows, env: extra = {} }) {
  const quote = (word) => `'${word.replaceAll("'", "'\\''")}'`;
  const size = cols ? `stty cols ${cols} rows ${rows}; ` : '';
  const command = `${size}exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, MIGRATE_API_KEY: API_KEY, TERM: 'xterm' };
  delete env.CI; // a person at a terminal, even when the tests run in CI
  delete env.NO_COLOR;
  Object.assign(env, extra);
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

const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** The output without escape codes, the last `n` characters as one JSON string: for a failure's message. */
export const shownTail = (output, n = 3000) => JSON.stringify(output.replace(ESCAPES, '').slice(-n));

/**
 * Every run of characters the terminal draws from the left edge of a row: output split at line ends,
 * carriage returns and moves to column 1, escape codes dropped. None may be wider than the terminal,
 * or it wraps (or is cut, where the bars turn wrapping off).
 */
export function drawnRows(output) {
  return output
    .split(/\r?\n|\r|\x1b\[1G|\x1b\[\d*[ABEF]/)
    .map((row) => row.replace(ESCAPES, ''))
    .filter((row) => row.trim() !== '');
}

/** Colour and style codes (SGR): `ESC [ ... m`. */
export const COLOUR = /\x1b\[[0-9;]*m/;
