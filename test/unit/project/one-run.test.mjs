// One run: every command that reads state or touches the network goes through the run
// module, and nothing else wires a lock, a run log, signals, a limiter or a retry policy of its own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../../helpers.mjs';

const SRC = path.join(ROOT, 'src');
const read = (rel) => readFileSync(path.join(SRC, rel), 'utf8');

/** The run's own parts: whoever else makes one of these has copied the run. @type {[RegExp, string][]} */
const WIRING = [
  [/new CheckpointLock\(/, 'a checkpoint lock'],
  [/\bopenRunLog\(/, 'a run log'],
  [/\binstallStopSignals\(/, 'signal handlers'],
  [/process\.(on|once)\('SIG/, 'signal handlers'],
  [/new RateLimiter\(/, 'a rate limiter'],
  [/DEFAULT_RETRY_POLICY/, 'a retry policy'],
  [/new (ImportClient|ReadClient|DeleteClient|RestClient|SourceClient)\(/, 'a client'],
];

/** Where they may be made: the run module, the layers it uses, and what is no run (the sandbox, media's pool). */
const ALLOWED = [
  'pipeline/run/',
  'checkpoint/',
  'http/',
  'sandbox/',
  'media/',
  'pipeline/import/media-session.ts',
  // Stream's link refresh belongs to media's pool (media/expiring-links.ts), only written in Stream's folder.
  'systems/stream/link-refresh.ts',
  // The sandbox is a server that stands in for the service, not a run of a migration.
  'cli/sandbox-command.ts',
  'cli/sandbox-flags.ts',
];

test('only the run module wires a lock, a run log, signals, limiters, retries and clients', () => {
  const offenders = [];
  for (const rel of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.ts') || ALLOWED.some((a) => rel.startsWith(a))) continue;
    const text = read(rel);
    for (const [pattern, what] of WIRING) if (pattern.test(text)) offenders.push(`${rel}: ${what}`);
  }
  assert.deepEqual(offenders, []);
});

test('every command that reads state or sends runs inside runInCommand', () => {
  for (const name of ['import', 'validate', 'replay', 'verify', 'undo', 'demo']) {
    const text = read(`cli/${name}-command.ts`);
    assert.match(text, /runInCommand\(/, `${name} goes through the run module`);
  }
  // import --dry-run is validate itself, not a second copy of it.
  assert.match(read('cli/import-command.ts'), /if \(opts\.dryRun\) return validateAction\(/);
});
