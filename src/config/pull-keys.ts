/** The config table's entries of `pull` and `sync` (keys.ts spreads them in its order). */
import type { KeySpec } from './key-spec.js';

export const PULL_KEYS = {
  sourceBaseUrl: {
    kind: 'url',
    group: 'pull',
    commands: ['pull', 'sync'],
    flag: '--source-base-url <url>',
    shownDefault: "the source's own API host",
    help: "the live source's API base URL: a regional endpoint, a proxy, or any server you run (pull --base-url)",
    doc: "The source's credentials are sent to this origin only; a next-page link to another origin is refused.",
  },
  sourceRequestsPerMinute: {
    kind: 'rate',
    group: 'pull',
    commands: ['pull', 'sync'],
    flag: '--source-requests-per-minute <n>',
    shownDefault: "the source's documented rate",
    help: 'client-side rate limit of the requests to the source, or "auto" (learnt from its rate headers)',
    doc: "Lowered on the source's 429s as the import's is; each source's default is in [Pull](pull.md).",
  },
  sourceConcurrency: {
    kind: 'int',
    min: 1,
    max: 16,
    group: 'pull',
    commands: ['pull', 'sync'],
    default: 4,
    flag: '--source-concurrency <n>',
    help: 'channels pulled at once',
  },
  lookbackMinutes: {
    kind: 'int',
    min: 0,
    max: 60,
    maxWhy: 'the pull keeps the ids of the last hour of each channel',
    group: 'pull',
    commands: ['pull', 'sync'],
    default: 10,
    flag: '--lookback <minutes>',
    help: '`pull --since auto` reads again this far back from the newest message pulled, for late edits and replies',
  },
  syncIntervalSeconds: {
    kind: 'int',
    min: 1,
    group: 'pull',
    commands: ['sync'],
    default: 60,
    flag: '--interval <seconds>',
    help: '`sync`: the wait between the end of a round (pull, import, verify) and the start of the next',
    doc: "See [Cutover](cutover.md) for choosing it against the source's rate limit.",
  },
} as const satisfies Record<string, KeySpec>;
