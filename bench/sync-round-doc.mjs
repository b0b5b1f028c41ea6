// docs/performance.md's section for the bench's `sync-round` rows, from bench/sync-round-results.json.
import { cell, formatTable, num } from './table.mjs';

const load = (l) => (l ? l.join(', ') : '?');

/** One size's lines under the table: what its run kept, how busy the machine was, and its note if any. */
function note(entry) {
  const kept = entry.reused
    ? 'the pull kept from an earlier run (`--sync-round-reuse`: its first round pulled nothing new and imported ' +
      "and verified everything into this run's sandbox); "
    : '';
  return (
    `${num(entry.messages)} messages (${entry.startedAt.slice(0, 16)}Z, commit ${entry.commit ?? '?'}` +
    `${entry.dirty ? ' + uncommitted' : ''}): ${kept}load average (1, 5, 15 min) at the start of each round: ` +
    `first ${load(entry.first.loadAverageAtStart)}; settling ${load(entry.settling.loadAverageAtStart)}; ` +
    `measured ${load(entry.measured.loadAverageAtStart)} (${entry.machine.cpus} CPUs, shared).` +
    (entry.note ? ` ${entry.note}` : '')
  );
}

/** The section, a set of rows per size measured; "not measured yet" while the results file is absent. */
export function syncRoundSection(results) {
  const head = '## A `sync` round with nothing new';
  const how = '`npm run bench -- --only sync-round [--sync-round-messages 10000000] [--sync-round-reuse]`';
  const entries = Object.values(results?.sizes ?? {}).sort(
    (a, b) => a.messages - b.messages || a.startedAt.localeCompare(b.startedAt),
  );
  if (entries.length === 0) return `${head}\n\nNot measured yet: ${how}.`;
  const rows = entries.flatMap((entry) =>
    entry.rows.map((row) => ({
      ...row,
      metric: cell(`${row.metric} (${entry.startedAt.slice(0, 10)}, ${entry.commit ?? '?'})`),
      measured: cell(row.measured),
      target: cell(row.target),
    })),
  );
  const { channels, users } = entries[0];
  return [
    head,
    '',
    `${how}: \`sync sendbird --rounds 1\` against the Sendbird fake (a test double from \`test/fakes/\`, in its ` +
      `own process) serving a generated world of N messages in ${num(channels)} channels from ${num(users)} ` +
      'users, and a sandbox process that keeps records, both unthrottled. The first round pulls, imports and ' +
      'verifies everything; then two rounds with nothing new, each its own process: the first lets the code ' +
      "write what it keeps between rounds, the second is measured. A round is timed from its process's start " +
      'to its exit ("round\'s own" is the time its line reports); source requests are the fake\'s count, ' +
      "service reads the sandbox's; peak RSS and CPU are the `sync` process's. What a round reads is in " +
      '[Cutover](cutover.md#what-one-round-costs). A run replaces the rows of the size it measured; the raw ' +
      'figures are in `bench/sync-round-results.json`.',
    '',
    formatTable(rows),
    '',
    entries.map(note).join('\n\n'),
  ].join('\n');
}
