import { emptyTraffic, type MediaHold, type Traffic, type UndoMark, type VerifyMark } from './ledger-marks.js';
import type { EntityName } from '../entities/types.js';
import { FileProgress, type FileProgressData } from './file-progress.js';
import {
  CHECKPOINT_VERSION,
  type CheckpointCompanion,
  type CheckpointData,
  type CheckpointIdentity,
  type BlockedMark,
  type CompanionName,
  type EntityTotals,
} from './checkpoint-data.js';
import { assertSameMigration, readCheckpoint, startsOver, writeAtomically } from './checkpoint-file.js';

// The types and the reader live beside it; importers of the store keep finding them here.
export {
  CHECKPOINT_VERSION,
  hashSources,
  type CheckpointCompanion,
  type CheckpointData,
  type CheckpointIdentity,
  type CompanionMark,
  type BlockedMark,
  type CompanionName,
  type EntityTotals,
} from './checkpoint-data.js';
export { readCheckpoint } from './checkpoint-file.js';

/**
 * The checkpoint file: versioned, checked on load, written atomically (temp file, fsync, rename), and
 * written by one writer at a time: a save requested while one is under way is folded into the next.
 */
export class CheckpointStore {
  private data!: CheckpointData;
  private readonly progress = new Map<string, FileProgress>();
  /** Cleared in the same tick as drain's last check, so a save made right after is never left waiting. */
  private draining = false;
  /**
   * Saves asked for, and the last one a finished write covered: a caller waits for its own, not for the queue to
   * empty.
   */
  private requested = 0;
  private written = 0;
  private waiters: Array<{ generation: number; resolve: () => void; reject: (err: unknown) => void }> = [];
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** A `saveSoon` write waiting for its time; the next write of any kind covers it. */
  private deferred?: { promise: Promise<void>; timer: NodeJS.Timeout; settle: (write: Promise<void>) => void };
  private companions = new Map<CompanionName, CheckpointCompanion>();

  private constructor(
    readonly path: string,
    private readonly minIntervalMs: number,
  ) {}

  /** Loads the checkpoint for this identity, or starts a new one (`fresh`, or none on disk). */
  static async open(
    filePath: string,
    identity: CheckpointIdentity,
    fresh: boolean,
    minIntervalMs = 0,
  ): Promise<CheckpointStore> {
    const store = new CheckpointStore(filePath, minIntervalMs);
    const existing = fresh ? undefined : await readCheckpoint(filePath);
    if (existing) {
      assertSameMigration(existing, identity, filePath);
      store.data = existing;
      // Undone and not sent to since: it starts over under this run's sources and id rule.
      if (startsOver(existing)) {
        existing.sourcesHash = identity.sourcesHash;
        existing.idRule = identity.idRule;
      }
    } else {
      const now = new Date().toISOString();
      store.data = {
        version: CHECKPOINT_VERSION,
        tool: 'chat-migrate',
        ...identity,
        createdAt: now,
        updatedAt: now,
        phasesDone: [],
        files: {},
        totals: {},
      };
    }
    return store;
  }

  /**
   * The migration's checkpoint if there is one for this target (undefined if none): for the runs that
   * read or amend a migration (verify, undo) but never start one.
   */
  static async openExisting(
    filePath: string,
    target: CheckpointIdentity['target'],
    minIntervalMs = 0,
    idRule?: string,
  ): Promise<CheckpointStore | undefined> {
    const existing = await readCheckpoint(filePath);
    if (!existing) return undefined;
    assertSameMigration(existing, { target, sourcesHash: existing.sourcesHash, idRule }, filePath, false);
    const store = new CheckpointStore(filePath, minIntervalMs);
    store.data = existing;
    return store;
  }

  get resumed(): boolean {
    return Object.keys(this.data.files).length > 0;
  }

  get snapshot(): Readonly<CheckpointData> {
    return this.data;
  }

  fileProgress(entity: EntityName, file: string): FileProgress {
    const key = `${entity}:${file}`;
    let p = this.progress.get(key);
    if (!p) {
      const stored = this.data.files[key] ?? { entity, file, watermark: 0, acked: [] };
      this.data.files[key] = stored;
      p = new FileProgress(stored);
      this.progress.set(key, p);
    }
    return p;
  }

  /** A file's progress as stored, or undefined: a look that makes no entry for a file never read. */
  storedFile(entity: EntityName, file: string): Readonly<FileProgressData> | undefined {
    return this.data.files[`${entity}:${file}`];
  }

  /** Starts the file over (it was rewritten in place); already-exists answers cover what was sent before. */
  resetFile(entity: EntityName, file: string): FileProgress {
    const key = `${entity}:${file}`;
    this.progress.delete(key);
    delete this.data.files[key];
    return this.fileProgress(entity, file);
  }

  totals(entity: EntityName): EntityTotals {
    return (this.data.totals[entity] ??= { imported: 0, alreadyPresent: 0, rejected: 0, skipped: 0 });
  }

  /** The users and groups whose children are held (BlockedMark), by `<entity>:<lower-cased id>`. */
  blockedParents(): Record<string, BlockedMark> {
    return (this.data.blocked ??= {});
  }

  /** Parents that got in and whose children a run has read to the end since: no longer held. */
  forgetReleasedParents(): void {
    const table = this.data.blocked ?? {};
    for (const [key, mark] of Object.entries(table)) if (mark.released) delete table[key];
    if (Object.keys(table).length === 0) delete this.data.blocked;
  }

  /** One command's traffic across runs: counted into as requests go, saved with the acknowledgements. */
  traffic(command: string): Traffic {
    return ((this.data.traffic ??= {})[command] ??= emptyTraffic());
  }

  /** What the service holds has changed: an earlier verify no longer speaks for it. */
  markChanged(): void {
    this.data.changedAt = new Date().toISOString();
  }

  /** A run starts (`running`) or ends with `status`. */
  recordRun(command: string, status: string, error?: string): void {
    this.data.lastRun = { command, status, at: new Date().toISOString(), ...(error ? { error } : {}) };
  }

  recordVerify(mark: VerifyMark): void {
    this.data.verified = mark;
  }

  /** How far an undo got: the service holds only part of the migration until it ends. */
  recordUndoing(done: number, total: number): void {
    this.data.undoing = { done, total };
  }

  /** The entities this import reads, in order: the migration is incomplete until each is done. */
  plan(entities: EntityName[]): void {
    this.data.planned = entities;
    this.data.undone = undefined;
    this.data.undoing = undefined;
  }

  /** An attachment held back with its message (`hold`), or carried now (undefined). */
  setMediaHold(url: string, hold: MediaHold | undefined): void {
    if (hold) ((this.data.media ??= {}).notCarried ??= {})[url] = hold;
    else if (this.data.media?.notCarried?.[url]) delete this.data.media.notCarried[url];
  }

  /** From now on every write records `companion`'s mark (under `name`) and puts its bytes on disk first. */
  keepInStep(companion: CheckpointCompanion, name: CompanionName = 'rejects'): void {
    this.companions.set(name, companion);
  }

  /**
   * After an undo: nothing of this migration is on the service any more. What it did per record goes
   * (the files were set aside); what it cost (traffic) and what was undone stay.
   */
  startOver(undone: UndoMark): void {
    const { version, tool, target, sourcesHash, idRule, createdAt, traffic } = this.data;
    const now = new Date().toISOString();
    this.data = {
      version,
      tool,
      target,
      sourcesHash,
      // Kept so the ledger still reads as the preset's; the next import sets its own (startsOver).
      ...(idRule !== undefined ? { idRule } : {}),
      createdAt,
      updatedAt: now,
      phasesDone: [],
      files: {},
      totals: {},
    };
    Object.assign(this.data, { traffic, undone, changedAt: now });
    this.progress.clear();
    this.companions.clear();
  }

  /** The companions were closed: later writes keep the marks they last had, or closed there. */
  detachCompanions(): void {
    for (const [name, companion] of this.companions) if (companion.closedMark) this.data[name] = companion.closedMark;
    this.companions.clear();
  }

  markPhaseDone(entity: EntityName): void {
    if (!this.data.phasesDone.includes(entity)) this.data.phasesDone.push(entity);
  }

  /**
   * Writes the current state. Calls coalesce: at most one write runs, and the next one covers every
   * call made meanwhile. Resolves once a write that includes this call's state is on disk.
   */
  save(): Promise<void> {
    const generation = ++this.requested;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ generation, resolve, reject }));
    if (!this.draining) {
      this.draining = true;
      void this.drain();
    }
    const deferred = this.deferred;
    if (deferred) {
      this.deferred = undefined;
      clearTimeout(deferred.timer);
      deferred.settle(done);
    }
    return done;
  }

  /** `checkpointIntervalMs` 0: every acknowledged batch is written before its slot is given back. */
  get writesEveryBatch(): boolean {
    return this.minIntervalMs === 0;
  }

  /**
   * Like `save`, but writes at most once every `minIntervalMs`: at a raised rate limit one write
   * (an fsync) covers many acknowledged batches instead of one each. A crash loses at most that
   * interval's acknowledgements, which the next run re-sends and the service answers already-exists.
   */
  saveSoon(): Promise<void> {
    if (this.deferred) return this.deferred.promise;
    const wait = this.lastWriteAt + this.minIntervalMs - Date.now();
    if (wait <= 0) return this.save();
    let settle!: (write: Promise<void>) => void;
    const promise = new Promise<void>((resolve, reject) => {
      settle = (write) => write.then(resolve, reject);
    });
    this.deferred = { promise, settle, timer: setTimeout(() => void this.save(), wait) };
    return promise;
  }

  /** Makes a write still waiting for its time now (before the lock is released). */
  async flush(): Promise<void> {
    if (this.deferred) await this.save();
  }

  private async drain(): Promise<void> {
    try {
      while (this.written < this.requested) {
        const target = this.requested;
        this.lastWriteAt = Date.now();
        this.data.updatedAt = new Date(this.lastWriteAt).toISOString();
        const companions = [...this.companions];
        for (const [name, companion] of companions) this.data[name] = companion.mark;
        const text = JSON.stringify(this.data, null, 1);
        try {
          for (const [, companion] of companions) await companion.persist();
          await writeAtomically(this.path, text, this.written === 0);
        } catch (err) {
          for (const w of this.waiters.splice(0)) w.reject(err);
          this.written = this.requested;
          return;
        }
        this.written = target;
        this.waiters = this.waiters.filter((w) => {
          if (w.generation > target) return true;
          w.resolve();
          return false;
        });
      }
    } finally {
      // In the same tick as the last check: a save() made by a resolved waiter starts a new drain.
      this.draining = false;
    }
  }
}
