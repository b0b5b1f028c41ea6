// The terminal a person watches: a real pseudo-terminal (test/pty.mjs), Ctrl+C pressed as the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_KEY, generatedWorkspace, runCli, sandbox, waitForRequests } from '../helpers.mjs';
import { drawnRows, inTerminal } from '../pty.mjs';

const workspace = (sb, messages) => generatedWorkspace(sb, { users: 60, groups: 3, membersPerGroup: 10, messages });

test(
  'in a terminal: a bar per phase with rate and ETA; ' +
    'Ctrl+C stops cleanly, shows the cursor again, says how to resume',
  async () => {
    // Real time: a terminal's Ctrl+C must land mid-run.
    const sb = await sandbox({ latencyMs: 150 });
    try {
      const { dir, counts } = await workspace(sb, 3000);
      const run = inTerminal(['import'], { cwd: dir, cols: 120, rows: 40 });
      await waitForRequests(sb, 2, { entity: 'messages' });
      run.ctrlC();
      const { code, output } = await run.done;
      assert.equal(code, 130, output.slice(-2000));
      // What the terminal showed, for a failure to be read from the test's output alone.
      const shown = JSON.stringify(output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').slice(-3000));
      // Bars, not lines: a finished phase's bar stays with its count and time, its outcome under it; the
      // running one has rate and ETA.
      const rows = drawnRows(output);
      const users = rows.findLastIndex((r) => /^users {4}█{30} 60\/60 100% \| [\d.]+ rec\/s \| in [\d.]+s$/.test(r));
      assert.ok(users >= 0, shown);
      // Its outcome is the last outcome row drawn before the groups phase: cli-progress writes a row only
      // when it changed, so the closing frame may redraw the bar alone below the outcome a frame before wrote.
      const groupsAt = rows.findIndex((r) => r.includes('groups'));
      const outcome = rows.slice(0, groupsAt).findLast((r) => r.startsWith(`${' '.repeat(9)}imported `));
      assert.equal(outcome, `${' '.repeat(9)}imported 60`, shown);
      assert.match(output, /messages [█░]{30} \d+\/3000 \d+% \| [\d.]+ rec\/s \| ETA \d+(s|m\d+s)/, shown);
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
  },
);

test('a terminal that reports no size gets plain progress lines, not a flood of redraws', async () => {
  // Real time: a run of some length, for a terminal's redraws (if any) to pile up.
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
