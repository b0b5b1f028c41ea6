import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { CheckpointError } from '../errors.js';
import type { EntityName } from '../entities/types.js';
import { FileProgress, type FileProgressData } from './file-progress.js';
import { emptyTraffic, type MediaHold, type Traffic, type UndoMark, type VerifyMark } from './ledger-marks.js';
import { fsReason, makeFolderFor, STATE_FILE_MODE } from './state-files.js';

export const CHECKPOINT_VERSION = 1;

/** Cumulative counts across runs, per entity. */
export interface EntityTotals {
  imported: number;
  alreadyPresent: number;
  rejected: number;
  skipped: number;
  /** Skipped records by reason (deleted, before --since, a preset's bots...). */
  skippedBy?: Record<string, number>;
  /** Rejected records that got in later (a fixed line, a replay, a reference that came). */
  resolved?: number;
  /** Rejected records the user took out of the rejects file before a replay: no longer open. */
  dropped?: number;
  /** `dropped` by the code each was rejected with. */
  droppedBy?: Record<string, number>;
  /** Of `imported`, records brought in by replay from the rejects file as edited. */
  replayed?: number;
  /** Records verify --repair found missing and sent again. */
  repaired?: number;
  /** Records the last reading of the entity to its end met. */
  inExport?: number;
}

/** What is on disk. Never holds the apiKey: only where the run goes and how far it got. */
export interface CheckpointData {
  version: number;
  tool: 'chat-migrate';
  target: { baseUrl: string; appId?: string };
  /** Hash of the configured sources (entity -> path patterns): another set of sources is another migration. */
  sourcesHash: string;
  createdAt: string;
  updatedAt: string;
  /** Entities whose phase finished in some run. */
  phasesDone: EntityName[];
  /** Per source file, keyed `<entity>:<file as displayed>`. */
  files: Record<string, FileProgressData & { entity: EntityName; file: string }>;
  totals: Partial<Record<EntityName, EntityTotals>>;
  /** The rejects file's mark when this checkpoint was taken (see CheckpointCompanion). */
  rejects?: CompanionMark;
  /** The id log's mark, likewise (id-log.ts). */
  imported?: CompanionMark;
  /** The entities the last import planned: one not done yet leaves the migration incomplete. */
  planned?: EntityName[];
  /** Requests per command, across runs (ledger.ts). */
  traffic?: Record<string, Traffic>;
  /** Attachments not carried, by the URL shown, until a run carries them. */
  media?: { notCarried?: Record<string, MediaHold> };
  /** The last verify's verdict; it speaks for the service only when newer than `changedAt`. */
  verified?: VerifyMark;
  /** When a run last changed what the service holds. */
  changedAt?: string;
  /** Set by undo; cleared when an import sends again. */
  undone?: UndoMark;
  /** An undo under way (stopped or killed before its end): deletes answered of all. */
  undoing?: { done: number; total: number };
  /** The last run that wrote this ledger and how it ended (`running` until it does: a crash leaves it). */
  lastRun?: { command: string; status: string; at: string; error?: string };
}

/** The companions a checkpoint keeps marks of, by the field that holds the mark. */
export type CompanionName = 'rejects' | 'imported';

/** Where a companion file stood when a checkpoint was taken; only the companion reads it. */
export interface CompanionMark {
  path: string;
  bytes: number;
  /** The run that wrote the file up to here. */
  run: string;
  /** A hash of the bytes just before `bytes`: tells whether the file is still the one marked. */
  before: string;
}

/**
 * A file appended to beside the checkpoint (the rejects file) whose lines belong to acknowledged
 * records only. Each checkpoint records its mark, taken in the same tick as the acknowledgements it
 * holds, and has its bytes on disk before the checkpoint is: a resume can tell the lines beyond the
 * mark, which it writes again, from the ones it must keep.
 */
export interface CheckpointCompanion {
  /** The mark once everything written so far is on disk. */
  readonly mark: CompanionMark;
  /** Puts everything written so far on disk. */
  persist(): Promise<void>;
}

export interface CheckpointIdentity {
  target: { baseUrl: string; appId?: string };
  sourcesHash: string;
}

export function hashSources(sources: unknown): string {
  return createHash('sha256').update(JSON.stringify(sources)).digest('hex').slice(0, 16);
}

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
  ): Promise<CheckpointStore | undefined> {
    const existing = await readCheckpoint(filePath);
    if (!existing) return undefined;
    assertSameMigration(existing, { target, sourcesHash: existing.sourcesHash }, filePath);
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
    const { version, tool, target, sourcesHash, createdAt, traffic } = this.data;
    const now = new Date().toISOString();
    this.data = {
      version,
      tool,
      target,
      sourcesHash,
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

  /** The companions were closed: later writes keep the marks they last had. */
  detachCompanions(): void {
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

// The callback API through promisify: plain descriptors, no FileHandle object (and its GC
// bookkeeping). With `checkpointIntervalMs` 0 a write follows every acknowledged batch.
const openFd = promisify(fs.open);
const writeFd = promisify(fs.write);
const fsyncFd = promisify(fs.fsync);
const closeFd = promisify(fs.close);
const renameFile = promisify(fs.rename);

async function writeAtomically(target: string, text: string, syncDirectory: boolean): Promise<void> {
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    // The first write of a run may go into a folder that does not exist yet (a fresh CI cache).
    if (syncDirectory) await makeFolderFor(target);
    // The rename gives the checkpoint the temp file's mode.
    const fd = await openFd(tmp, 'w', STATE_FILE_MODE);
    try {
      const bytes = Buffer.from(text, 'utf8');
      for (let done = 0; done < bytes.length; ) {
        done += (await writeFd(fd, bytes, done, bytes.length - done, done)).bytesWritten;
      }
      await fsyncFd(fd);
    } finally {
      await closeFd(fd);
    }
    await renameFile(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new CheckpointError('CHECKPOINT_UNWRITABLE', `cannot write the checkpoint ${target}: ${fsReason(err)}`);
  }
  // The first rename is durable only once the directory entry is on disk. Later ones replace that
  // entry: should the OS crash before one reaches the disk, the previous checkpoint is still there,
  // which costs a few already-exists answers, never a lost record. So they skip this (3 calls a write).
  if (!syncDirectory) return;
  const dir = await openFd(path.dirname(target), 'r').catch(() => undefined);
  if (dir !== undefined)
    await fsyncFd(dir)
      .catch(() => undefined)
      .finally(() => closeFd(dir));
}

/**
 * Reads and checks a checkpoint; undefined when there is none. A torn or foreign file is an error, never a silent
 * restart.
 */
export async function readCheckpoint(filePath: string): Promise<CheckpointData | undefined> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CheckpointError(
      'CHECKPOINT_UNREADABLE',
      `cannot read the checkpoint ${filePath}: ${(err as NodeJS.ErrnoException).code}`,
    );
  }
  const corrupt = (why: string) =>
    new CheckpointError('CHECKPOINT_CORRUPT', `the checkpoint ${filePath} is damaged (${why})`, {
      hint:
        'run again with --fresh to start over ' +
        '(records already imported are recognised by the service and counted as already present)',
    });
  let data: CheckpointData;
  try {
    data = JSON.parse(text) as CheckpointData;
  } catch {
    throw corrupt('not valid JSON: it may have been cut off');
  }
  if (typeof data !== 'object' || data === null || data.tool !== 'chat-migrate')
    throw corrupt('not a chat-migrate checkpoint');
  if (data.version !== CHECKPOINT_VERSION)
    throw corrupt(`version ${String(data.version)}, expected ${CHECKPOINT_VERSION}`);
  if (
    typeof data.files !== 'object' ||
    data.files === null ||
    !Array.isArray(data.phasesDone) ||
    typeof data.target !== 'object'
  ) {
    throw corrupt('missing fields');
  }
  for (const [key, f] of Object.entries(data.files)) {
    if (!Number.isInteger(f.watermark) || f.watermark < 0 || !Array.isArray(f.acked))
      throw corrupt(`bad progress for ${key}`);
  }
  for (const name of ['rejects', 'imported'] as const) {
    const mark = data[name];
    const badMark =
      typeof mark?.path !== 'string' ||
      !Number.isInteger(mark.bytes) ||
      mark.bytes < 0 ||
      typeof mark.run !== 'string' ||
      typeof mark.before !== 'string';
    // Without a whole mark a resume only leaves the file as it is (a mark from an older build).
    if (mark !== undefined && badMark) delete data[name];
  }
  data.totals ??= {};
  return data;
}

function assertSameMigration(data: CheckpointData, identity: CheckpointIdentity, filePath: string): void {
  const hint = `use --fresh to start a new migration, or --checkpoint to pick another file`;
  if (data.target.baseUrl !== identity.target.baseUrl || (data.target.appId ?? '') !== (identity.target.appId ?? '')) {
    throw new CheckpointError(
      'CHECKPOINT_OTHER_TARGET',
      `the checkpoint ${filePath} belongs to a migration into ${data.target.baseUrl}, not ${identity.target.baseUrl}`,
      { hint },
    );
  }
  if (data.sourcesHash !== identity.sourcesHash) {
    throw new CheckpointError(
      'CHECKPOINT_OTHER_SOURCES',
      `the checkpoint ${filePath} was made for another set of sources`,
      {
        hint:
          'to send records you fixed, edit them in the rejects file (or in the export) and run ' +
          '`chat-migrate replay`; to start a new migration use --fresh, or --checkpoint to pick another file',
      },
    );
  }
}
