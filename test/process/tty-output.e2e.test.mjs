// What a person sees in a terminal of 80 columns: nothing wraps, the bars say what the summary says,
// the ETA of a resume counts only this run's work, retries show while they wait, colours obey NO_COLOR.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import {
  generatedWorkspace,
  sandbox,
  tempDir,
  waitForRequests,
  writeConfig,
  writeGeneratedExport,
} from '../helpers.mjs';
import { COLOUR, drawnRows, inTerminal, shownTail } from '../pty.mjs';

const COLS = 80;
const MESSAGES = 4000;

/** The summary table's cell for `row` and `column` (entity name or total). */
function summaryCell(rows, row, column) {
  const header = rows
    .findLast((r) => /^ +users +groups +members +messages +total$/.test(r))
    .trim()
    .split(/ +/);
  const cells = rows
    .findLast((r) => r.startsWith(`${row}  `))
    .slice(row.length)
    .trim()
    .split(/ +/);
  return Number(cells[header.indexOf(column)]);
}

const tooWide = (rows) => rows.filter((r) => [...r].length > COLS);

test('80 columns: nothing wraps; a resumed bar counts this run only for rate and ETA, in summary words', async () => {
  // Real time: a terminal's Ctrl+C must land mid-messages, and the bars redraw on their own timer.
  const sb = await sandbox({ latencyMs: 150 });
  try {
    const { dir } = await generatedWorkspace(sb, { users: 60, groups: 3, membersPerGroup: 10, messages: MESSAGES });
    const first = inTerminal(['import'], { cwd: dir, cols: COLS, rows: 30 });
    await waitForRequests(sb, 3, { entity: 'messages' });
    first.ctrlC();
    const stopped = await first.done;
    assert.equal(stopped.code, 130, shownTail(stopped.output));
    let rows = drawnRows(stopped.output);
    assert.deepEqual(tooWide(rows), [], shownTail(stopped.output));
    // The first Ctrl+C is answered at once, whole, on rows of its own, and the summary says how to go on.
    const notice = 'stopping: finishing the batches in flight, then saving the checkpoint.';
    assert.ok(rows.includes(notice), shownTail(stopped.output));
    assert.ok(rows.includes('  Press Ctrl+C again to stop at once.'), shownTail(stopped.output));
    assert.ok(rows.includes('run the same command again to resume.'), shownTail(stopped.output));

    const resumed = await inTerminal(['import'], { cwd: dir, cols: COLS, rows: 30 }).done;
    assert.equal(resumed.code, 0, shownTail(resumed.output));
    rows = drawnRows(resumed.output);
    assert.deepEqual(tooWide(rows), [], shownTail(resumed.output));
    const running = new RegExp(`^messages +[█░]* *(\\d+)/${MESSAGES} \\d+% \\| ([\\d.]+) rec/s \\| ETA (\\d+)s$`);
    const frames = rows.map((r) => running.exec(r)).filter(Boolean);
    assert.ok(frames.length > 0, shownTail(resumed.output));
    for (const [text, done, rate, eta] of frames) {
      // What is left at the rate shown: records done by the first run are not this run's speed.
      const expected = (MESSAGES - Number(done)) / Number(rate);
      const why = `${text}: ETA ${eta}s, expected ${expected.toFixed(1)}s`;
      assert.ok(Math.abs(Number(eta) - expected) <= 1 + expected * 0.05, why);
    }
    // The finished bar's outcome is the summary's, word for word and number for number. It is the last
    // outcome row drawn: cli-progress writes a row only when it changed, so the final frame may redraw
    // the bar alone and leave the outcome row the frame before wrote (a terminal still shows it).
    const summaryAt = rows.findIndex((r) => /^ +users +groups +members +messages/.test(r));
    const lastOutcome = rows.slice(0, summaryAt).findLast((r) => r.startsWith(`${' '.repeat(9)}imported `));
    const imported = summaryCell(rows, 'imported', 'messages');
    const earlier = summaryCell(rows, 'done earlier', 'messages');
    assert.ok(imported > 0 && earlier > 0, shownTail(resumed.output));
    const outcome = `${' '.repeat(9)}imported ${imported}, done earlier ${earlier}`;
    assert.equal(lastOutcome, outcome, shownTail(resumed.output));
  } finally {
    await sb.close();
  }
});

test('a retry shows on the terminal while it waits, with the host and the cause', async () => {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((r) => server.close(r));
  const dir = await tempDir();
  const { sources } = await writeGeneratedExport(dir, { users: 5, groups: 1, membersPerGroup: 1, messages: 1 });
  await writeConfig(dir, { baseUrl: `http://127.0.0.1:${port}`, sources, retries: 3 });
  const { code, output } = await inTerminal(['import'], { cwd: dir, cols: COLS, rows: 30 }).done;
  assert.equal(code, 1, shownTail(output));
  const rows = drawnRows(output);
  const cause = `ECONNREFUSED 127\\.0\\.0\\.1:${port}`;
  const waiting = new RegExp(`users: starting - retrying in [\\d.]+ s \\(\\d/3\\): ${cause}$`);
  assert.ok(
    rows.some((r) => waiting.test(r)),
    shownTail(output),
  );
  assert.deepEqual(tooWide(rows), [], shownTail(output));
});

test('NO_COLOR (any value) and --no-color leave out every colour; without them the spinner has one', async () => {
  // Real time: the spinner draws frames on its own timer while the first requests wait.
  const sb = await sandbox({ latencyMs: 100 });
  try {
    const { dir } = await generatedWorkspace(sb, { users: 20, groups: 2, membersPerGroup: 5, messages: 200 });
    const plain = await inTerminal(['import', '--fresh'], { cwd: dir, cols: COLS, rows: 30 }).done;
    assert.equal(plain.code, 0, shownTail(plain.output));
    assert.match(plain.output, COLOUR, 'the spinner is coloured by default: else this test proves nothing');
    const plainRuns = [
      [['import', '--fresh'], { NO_COLOR: 'yes' }],
      [['import', '--fresh', '--no-color'], {}],
      [['--no-color', 'import', '--fresh'], {}],
    ];
    for (const [args, env] of /** @type {Array<[string[], Record<string, string>]>} */ (plainRuns)) {
      const run = await inTerminal(args, { cwd: dir, cols: COLS, rows: 30, env }).done;
      assert.equal(run.code, 0, shownTail(run.output));
      const found = JSON.stringify(COLOUR.exec(run.output)?.[0]);
      assert.doesNotMatch(run.output, COLOUR, `${args.join(' ')} ${JSON.stringify(env)}: ${found}`);
    }
  } finally {
    await sb.close();
  }
});
