// docs/performance.md's section for the bench's `sync-round` rows, from bench/sync-round-results.json.
import { cell, formatTable, num } from './table.mjs';

const load = (l) => (l ? l.join(', ') : '?');

/** The section; "not measured yet" while bench/sync-round-results.json is absent. */
export function syncRoundSection(result) {
  const head = '## A `sync` round with nothing new';
  const how = '`npm run bench -- --only sync-round [--sync-round-messages 10000000] [--sync-round-reuse]`';
  if (result === undefined) return `${head}\n\nNot measured yet: ${how}.`;
  const rows = result.rows.map((row) => ({
    ...row,
    metric: cell(row.metric),
    measured: cell(row.measured),
    target: cell(row.target),
  }));
  const at = `${result.startedAt.slice(0, 10)}, commit ${result.commit ?? '?'}${result.dirty ? ' + uncommitted' : ''}`;
  const loads =
    `load average (1, 5, 15 min) at the start of each round: first ${load(result.first.loadAverageAtStart)}; ` +
    `settling ${load(result.settling.loadAverageAtStart)}; measured ${load(result.measured.loadAverageAtStart)} ` +
    `(${result.machine.cpus} CPUs)`;
  return [
    head,
    '',
    `${how} (${at}): \`sync sendbird --rounds 1\` against the Sendbird fake (a test double from ` +
      `\`test/fakes/\`, in its own process) serving ${num(result.messages)} messages in ${num(result.channels)} ` +
      `channels from ${num(result.users)} users, and a sandbox process that keeps records, both unthrottled. ` +
      'The first round pulls, imports and verifies everything; then two rounds with nothing new, each its own ' +
      'process: the first lets the code write what it keeps between rounds, the second is measured. A round ' +
      'is timed from the process\'s start to its exit ("round\'s own" is the time its line reports); source ' +
      "requests are the fake's count, service reads the sandbox's. What a round reads is in " +
      '[Cutover](cutover.md#what-one-round-costs). The raw figures are in `bench/sync-round-results.json`.' +
      (result.reused
        ? ' This run kept the pull of an earlier run (`--sync-round-reuse`): its first round pulled nothing ' +
          "new and imported and verified everything into this run's sandbox."
        : ''),
    '',
    formatTable(rows),
    '',
    `Measured on a shared machine: ${loads}.`,
  ].join('\n');
}
