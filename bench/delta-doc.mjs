// docs/performance.md's section for the bench's `delta` rows, from bench/delta-results.json.
import { cell, formatTable } from './table.mjs';

/** The section; "not measured yet" while bench/delta-results.json is absent. */
export function deltaSection(delta) {
  const head = '## Runs with little or nothing new';
  if (delta === undefined) return `${head}\n\nNot measured yet: \`npm run bench -- --only delta --scale 10\`.`;
  const rows = delta.rows.map((row) => ({
    ...row,
    metric: cell(row.metric),
    measured: cell(row.measured),
    target: cell(row.target),
  }));
  const at = `${delta.startedAt.slice(0, 10)}, commit ${delta.commit ?? '?'}`;
  return [
    head,
    '',
    '`npm run bench -- --only delta --scale 10 [--delta-before <other build>/bin/chat-migrate.js]` ' +
      `(${at}): an export of ${delta.messages.toLocaleString('en-US')} messages in ${delta.files} NDJSON files ` +
      '(users, groups and members as at scale 1) imported whole into a sandbox process, then imported again with ' +
      'nothing new, then with one new message file. A message file that ends where the last reading of it ended ' +
      'is not read again ([Resume and rejects](resume-and-rejects.md)); users, groups and members are read every ' +
      'run. "before" is the same import run by `--delta-before`, the code that read every file again. ' +
      'The raw figures are in `bench/delta-results.json`.' +
      (delta.reused
        ? " This run kept the checkpoint of an earlier run's import of everything (`--delta-reuse`): that import " +
          'has no row here.'
        : ''),
    '',
    formatTable(rows),
  ].join('\n');
}
