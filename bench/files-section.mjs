// The bench's `files` section (issue 14): exports of many small files, imported into a sandbox in
// another process with no rate limit. What counts is requests, not time: each phase's requests
// against ceil(N/50), the fewest that can carry its N records, while batches stop at file ends.
import path from 'node:path';
import { BIN, RUN_DIR, SANDBOX_KEY, lastJson, runNode, startSandboxChild, writeBenchConfig } from './children.mjs';
import { ensureManyFilesExport, ensureSlackWorkspace } from './files-data.mjs';
import { num, pct } from './table.mjs';

const ENTITIES = ['users', 'groups', 'members', 'messages'];
const BATCH = 50;
/** Requests may exceed the fewest possible by this share (issue 14: "at most 1% more"). */
const SLACK = 0.01;

/** One `import --json --fresh` of `target` (sources, or a preset and its export) into a fresh sandbox. */
async function importInto(name, target, concurrency) {
  const sb = await startSandboxChild({});
  try {
    const dir = path.join(RUN_DIR, name);
    const config = writeBenchConfig(dir, { baseUrl: sb.url, concurrency, ...target });
    const result = await runNode(BIN, ['import', '--json', '--fresh', '-c', config], {
      env: { MIGRATE_API_KEY: SANDBOX_KEY },
    });
    const summary = lastJson(result, `import ${name}`);
    return { summary, stats: await sb.stats(), ms: result.ms, exit: result.code };
  } finally {
    await sb.stop();
  }
}

/** Per phase: requests the sandbox took, the fewest possible (ceil(N/50)) and what they carried. */
function phaseRequests(stats) {
  const phases = {};
  for (const e of ENTITIES) {
    const s = stats.perEntity[e];
    const fewest = Math.ceil(s.recordsReceived / BATCH);
    phases[e] = { requests: s.requests, fewest, records: s.recordsReceived, full: s.fullRequests };
  }
  return phases;
}

const within = (p) => p.requests <= Math.floor(p.fewest * (1 + SLACK));
const excess = (p) => (p.fewest === 0 ? 0 : p.requests / p.fewest - 1);

/** Stored = expected for every entity, nothing stored twice or refused, the run completed. */
function arrivals(stats, summary, counts) {
  const bad = ENTITIES.filter((e) => {
    const s = stats.perEntity[e];
    return s.stored !== counts[e] || s.alreadyExists !== 0 || s.rejected !== 0;
  });
  const stored = ENTITIES.reduce((sum, e) => sum + stats.perEntity[e].stored, 0);
  const expected = ENTITIES.reduce((sum, e) => sum + counts[e], 0);
  const text =
    bad.length === 0
      ? `${num(stored)}/${num(expected)} stored, 0 again, 0 rejected`
      : bad.map((e) => `${e}: stored ${stats.perEntity[e].stored}/${counts[e]}`).join('; ');
  return { ok: bad.length === 0 && summary.status === 'completed', text };
}

/** The three rows of one export: messages' requests, the other phases' requests, arrivals. */
function addRows(row, label, run, counts) {
  const phases = phaseRequests(run.stats);
  const m = phases.messages;
  const carried = `${m.requests > 0 ? (m.records / m.requests).toFixed(1) : 'n/a'} records a request`;
  row(
    'files',
    `${label}: messages requests vs ceil(N/50)`,
    `${num(m.requests)} for ${num(m.records)} messages; ceil(N/50) = ${num(m.fewest)} (+${pct(excess(m))}; ${carried})`,
    '<= ceil(N/50) + 1%',
    within(m),
  );
  const others = ENTITIES.filter((e) => e !== 'messages');
  row(
    'files',
    `${label}: users, groups, members requests vs ceil(N/50)`,
    others.map((e) => `${e} ${num(phases[e].requests)}/${num(phases[e].fewest)}`).join(', '),
    '<= ceil(N/50) + 1% each',
    others.every((e) => within(phases[e])),
  );
  const arrived = arrivals(run.stats, run.summary, counts);
  row('files', `${label}: every record arrives once`, arrived.text, 'stored = generated', arrived.ok);
  return { phases, ms: run.ms, exit: run.exit, totals: run.summary.totals, counts };
}

/**
 * Generates (or reuses) both exports, imports each once and adds their rows. Returns the details for
 * results.json: per export, each phase's requests, the fewest possible, records and full requests.
 * @param {{ concurrency: number, log: (line: string) => void, row: Function }} options
 */
export async function measureManyFiles({ concurrency, log, row }) {
  const plain = ensureManyFilesExport({}, log);
  const slack = ensureSlackWorkspace({}, log);
  const details = {};

  log(`import of ${num(plain.files)} NDJSON message files (${num(plain.counts.messages)} messages), unthrottled ...`);
  const plainRun = await importInto('files-ndjson', { sources: plain.sources }, concurrency);
  const plainLabel = `${num(plain.files)} NDJSON files of 1-9 messages`;
  details.ndjson = addRows(row, plainLabel, plainRun, plain.counts);

  log(`import --preset slack of ${num(slack.files)} day files (${num(slack.counts.messages)} messages) ...`);
  const slackRun = await importInto('files-slack', { preset: 'slack', from: slack.dir }, concurrency);
  details.slack = addRows(row, `Slack preset, ${num(slack.files)} day files of 1-9 messages`, slackRun, slack.counts);
  return details;
}
