/**
 * Starts an import's media pass, when `media` is set and there are messages: it runs alongside the
 * users, groups and members phases, and the message phase waits for it, then rewrites each message's
 * attachments from its answers (import-pass.ts calls `hook`).
 */
import type { MigrateConfig } from '../../config/schema.js';
import type { MappedRecord } from '../../entities/types.js';
import type { ProxySettings } from '../../http/proxy-env.js';
import type { Clock } from '../../clock.js';
import type { CheckpointStore } from '../../checkpoint/store.js';
import type { ExportFolder } from '../../media/media-sources.js';
import type { EntityPlan, RecordInput } from '../../sources/plan.js';
import type { RunEvents } from '../events.js';
import { unlistedHostsText } from '../../media/unlisted-hosts.js';
import { carryMessageMedia, rewriteMedia, type WithoutMissing } from './media-pass.js';
import { MediaSession } from './media-session.js';

/** What the message phase needs of media. */
export interface MediaHook {
  /** Settles once every attachment of the messages is carried or failed. */
  ready: Promise<void>;
  rewrite(record: MappedRecord, input: RecordInput): MappedRecord;
}

export interface MediaStartOptions {
  config: MigrateConfig;
  plans: EntityPlan[];
  exportFolder?: ExportFolder;
  sinceSec?: number;
  /** Messages beyond the retention window are not sent, so their files are not carried. */
  retentionCutoffSec?: number;
  stop: AbortSignal;
  hardStop: AbortSignal;
  env: NodeJS.ProcessEnv;
  /** Where a file's path is shown from. */
  cwd: string;
  clock: Clock;
  /** `replay --without-missing-files`: messages held only for missing files go in without them. */
  withoutMissing?: WithoutMissing;
  checkpoint: CheckpointStore;
}

export async function startMediaPass(
  options: MediaStartOptions,
  proxy: ProxySettings,
  events: RunEvents,
): Promise<{ session: MediaSession; hook: MediaHook; close(): Promise<void> } | undefined> {
  const { config } = options;
  const media = config.media;
  const plan = options.plans.find((p) => p.entity.name === 'messages');
  if (media === undefined || plan === undefined) return undefined;
  const session = await MediaSession.open({
    config: media,
    checkpoint: config.checkpoint,
    exportFolder: options.exportFolder,
    env: options.env,
    cwd: options.cwd,
    proxy,
    timeoutMs: config.timeoutMs,
    hardStop: options.hardStop,
    clock: options.clock,
  });
  events.info(`media: carrying attachments into bucket ${media.bucket} (map: ${session.summary().map})`);
  // A run that ends early (a fatal error in an earlier phase) stops the pass before its carrier closes.
  const halt = new AbortController();
  const stop = AbortSignal.any([options.stop, halt.signal]);
  const { sinceSec, retentionCutoffSec, checkpoint } = options;
  const run = { importSoftDeleted: config.importSoftDeleted, sinceSec, retentionCutoffSec, stop, checkpoint };
  const ready = carryMessageMedia(plan, session.run, { ...run, queueLimit: media.concurrency }).then(() => {
    session.finished();
    const c = session.summary();
    events.info(`media: ${c.files} files: ${c.uploaded} uploaded, ${c.reused} already stored, ${c.failed} not carried`);
    if (c.notListed) events.warning(unlistedHostsText(c.notListed));
    if (c.failed > 0)
      events.warning(
        `media: ${c.failed} attachment file(s) could not be carried: their messages are held back ` +
          `(media.not-carried) until a run carries them; listed in ${c.problems}`,
      );
  });
  // Awaited by the message phase; until then a failure must not count as unhandled.
  ready.catch(() => undefined);
  const close = async () => {
    halt.abort();
    await ready.catch(() => undefined);
    await session.close();
  };
  return {
    session,
    close,
    hook: {
      ready,
      rewrite: (record, input) => rewriteMedia(record, input.path, session.run, options.withoutMissing),
    },
  };
}
