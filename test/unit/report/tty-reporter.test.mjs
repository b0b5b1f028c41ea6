// The rows cli-progress draws for a phase, frame by frame, on a terminal of a chosen width: the bar and
// its figures, the row without a total, the row too narrow for a bar, verify's words, a retry, the end.
// The pty tests (tty*.e2e.test.mjs) see the same rows through a real terminal, for one width at a time.
import assert from 'node:assert/strict';
import readline from 'node:readline';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { emptyCounts } from '../../../dist/pipeline/events.js';
import { VERIFY_TERMS } from '../../../dist/report/figures.js';
import { TtyReporter } from '../../../dist/report/tty-reporter.js';
import { drawnRows } from '../../pty.mjs';
import { virtualClock } from '../../virtual-clock.mjs';

/** A terminal of `columns` that keeps what it is sent: a stream with tty.WriteStream's cursor methods. */
function terminal(columns) {
  let output = '';
  const out = new Writable({
    write(chunk, _encoding, done) {
      output += chunk;
      done();
    },
  });
  Object.assign(out, {
    isTTY: true,
    columns,
    rows: 30,
    cursorTo: (x, y, cb) => readline.cursorTo(out, x, y, cb),
    moveCursor: (dx, dy, cb) => readline.moveCursor(out, dx, dy, cb),
    clearLine: (dir, cb) => readline.clearLine(out, dir, cb),
    clearScreenDown: (cb) => readline.clearScreenDown(out, cb),
  });
  return { out: /** @type {NodeJS.WriteStream} */ (/** @type {unknown} */ (out)), output: () => output };
}

const counts = (c) => ({ ...emptyCounts(), ...c });

const INDENT = ' '.repeat(9);
// 2250 done in 16.437 s: 136.9 rec/s, and the 3750 left take 27 s at that rate.
const RUNNING = counts({ read: 2300, imported: 2000, alreadyPresent: 250, elapsedMs: 16_437 });

test('a running phase: a bar of 30 cells, done/total, percent, rate and ETA; the outcome under it', () => {
  const t = terminal(80);
  const reporter = new TtyReporter(t.out, false);
  reporter.phaseStarted('messages', 6000);
  reporter.progress('messages', RUNNING);
  reporter.info('a line above the bars'); // draws a frame now
  reporter.close();
  const rows = drawnRows(t.output());
  const bar = `${'█'.repeat(11)}${'░'.repeat(19)}`; // 37.5% of 30 cells
  assert.ok(rows.includes(`messages ${bar} 2250/6000 37% | 136.9 rec/s | ETA 27s`), JSON.stringify(rows));
  assert.ok(rows.includes(`${INDENT}imported 2000, already there 250`), JSON.stringify(rows));
  assert.ok(rows.includes('a line above the bars'));
  assert.ok(t.output().lastIndexOf('\x1b[?25h') > t.output().lastIndexOf('\x1b[?25l'), 'cursor shown again');
});

test('40 columns: no room for 8 cells of bar, so the figures alone, cut to the width', () => {
  const t = terminal(40);
  const reporter = new TtyReporter(t.out, false);
  reporter.phaseStarted('messages', 6000);
  reporter.progress('messages', RUNNING);
  reporter.close();
  const rows = drawnRows(t.output()).filter((r) => r.startsWith('messages '));
  const figures = 'messages 2250/6000 37% | 136.9 rec/s | ETA 27s';
  assert.ok(rows.includes(`${figures.slice(0, 38)}…`), JSON.stringify(rows));
  assert.deepEqual(
    rows.filter((r) => [...r].length > 39),
    [],
  );
});

test("no total: the count and the rate; verify's words under it", () => {
  const t = terminal(80);
  const reporter = new TtyReporter(t.out, false, VERIFY_TERMS);
  reporter.phaseStarted('groups', undefined);
  reporter.progress('groups', counts({ read: 12, alreadyPresent: 12, elapsedMs: 2000 }));
  reporter.close();
  const rows = drawnRows(t.output());
  assert.ok(rows.includes('groups   12 records | 6.0 rec/s'), JSON.stringify(rows));
  assert.ok(rows.includes(`${INDENT}found on the service 12`), JSON.stringify(rows));
});

test('a retry shows under the bar while it waits', () => {
  const t = terminal(80);
  const reporter = new TtyReporter(t.out, false);
  reporter.phaseStarted('messages', 6000);
  reporter.progress('messages', RUNNING);
  reporter.retrying('messages', { attempt: 1, of: 8, delayMs: 60_000, reason: 'HTTP 503' });
  reporter.info('draw');
  reporter.close();
  const rows = drawnRows(t.output());
  assert.ok(rows.includes(`${INDENT}retrying in 60 s (1/8): HTTP 503`), JSON.stringify(rows));
});

test("a retry's wait counts down on the reporter's clock, then says the retry is under way", (c) => {
  const t = terminal(80);
  const clock = virtualClock();
  const reporter = new TtyReporter(t.out, false, undefined, clock);
  c.after(() => reporter.close());
  reporter.phaseStarted('messages', 6000);
  reporter.progress('messages', RUNNING);
  reporter.retrying('messages', { attempt: 1, of: 8, delayMs: 60_000, reason: 'HTTP 503' });
  clock.advance(45_000);
  reporter.info('draw');
  assert.ok(drawnRows(t.output()).includes(`${INDENT}retrying in 15 s (1/8): HTTP 503`), t.output());
  clock.advance(20_000);
  reporter.info('draw');
  reporter.close();
  const rows = drawnRows(t.output());
  assert.ok(rows.includes(`${INDENT}retry 1/8 under way, after HTTP 503`), JSON.stringify(rows));
});

test('a finished phase: its total is what was read, its time instead of the ETA; the rows stay', () => {
  const t = terminal(120);
  const reporter = new TtyReporter(t.out, false);
  reporter.phaseStarted('users', 58); // the estimate counted lines, not records
  reporter.phaseFinished('users', counts({ read: 60, imported: 60, elapsedMs: 4200 }), true);
  const rows = drawnRows(t.output());
  assert.deepEqual(rows.slice(-2), [
    `users    ${'█'.repeat(30)} 60/60 100% | 14.3 rec/s | in 4.2s`,
    `${INDENT}imported 60`,
  ]);
  reporter.close();
});
