// The bench's `pull` section (issue 27 point 10, issue 28 point 3): each live source's fake in its own
// process, serving 1M messages (scale 1) under a budget of R requests a minute, and `pull` reading it
// all: the share of R it holds (requests over the wall time) and its peak RSS. Results go to
// bench/pull-results.json, which docs/performance.md renders a line per source from.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { BIN, RUN_DIR, lastJson, runNode, startFakeChild } from './children.mjs';
import { mb, num, pct } from './table.mjs';

export const PULL_SOURCES = ['sendbird', 'stream', 'twilio', 'slack', 'discord'];
const MEMORY_LIMIT = 150 * 2 ** 20;
/** The share of R the pull must hold (issue 27 point 10). */
const RATE_TARGET = 0.95;

/**
 * Pulls `messages` messages from each source's fake at R requests a minute (the fake's budget and the
 * pull's limiter both); `sources` limits which.
 */
export async function measurePull({ messages, rate, log, row, sources = PULL_SOURCES, concurrency = 8 }) {
  const results = {};
  const channels = Math.max(20, Math.round(messages / 5000));
  const users = Math.max(50, Math.round(messages / 1000));
  for (const source of sources) {
    const fake = await startFakeChild(source, { world: { messages, channels, users }, requestsPerMinute: rate });
    try {
      const dir = path.join(RUN_DIR, `pull-${source}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      log(`pull ${source}: ${num(messages)} messages in ${num(channels)} channels at ${num(rate)} requests/min ...`);
      const args = ['pull', source, '--out', path.join(dir, 'out'), '--json', '--base-url', fake.url];
      args.push('--checkpoint', path.join(dir, 'checkpoint.json'));
      args.push('--source-requests-per-minute', String(rate), '--source-concurrency', String(concurrency));
      if (source === 'discord' && fake.guild) args.push('--guild', fake.guild);
      const run = await runNode(BIN, args, { env: fake.env, cwd: dir });
      const summary = lastJson(run, `pull ${source}`);
      const stats = await fake.stats();
      const pulled = summary.counts.messages.imported;
      const perMinute = summary.requests / (run.ms / 60_000);
      const share = perMinute / rate;
      const rss = run.rss?.maxRssBytes;
      row(
        'pull',
        `pull ${source}: ${num(messages)} messages at R = ${num(rate)}/min`,
        `${pct(share)} of R (${num(summary.requests)} requests in ${(run.ms / 1000).toFixed(1)} s, ` +
          `${num(stats.rateLimited ?? 0)} 429), ${num(pulled)} messages, peak ${mb(rss)}`,
        `>= ${pct(RATE_TARGET)} of R, <= 150 MB`,
        run.code === 0 && pulled === messages && share >= RATE_TARGET && rss <= MEMORY_LIMIT,
      );
      results[source] = {
        exit: run.code,
        ms: run.ms,
        requests: summary.requests,
        rateLimited: stats.rateLimited,
        messages: pulled,
        shareOfRate: share,
        rss: run.rss,
      };
    } finally {
      await fake.stop();
    }
  }
  return { messages, rate, channels, users, sources: results };
}
