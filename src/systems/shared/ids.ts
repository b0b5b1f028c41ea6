/**
 * Source ids -> service ids (uid, guid, muid), by one of two rules (the `idRule` setting):
 *
 * `vendor` (the default) is the function the service's vendor tells app developers to log users in
 * with (`toCometChatId` in its Sendbird, Stream and Twilio migration guides), so an app built on
 * that guidance finds the imported users and groups: lower-case the id, turn every character
 * outside `[a-z0-9_-]` into `_`, and when that changed anything or the result is over 100
 * characters, keep its first 90 characters and add `_` and a 32-bit rolling hash (multiplier 31,
 * over the original's code points) in base 36. It can map two source ids to one (`Alice` and
 * `alice_11ptgg`): validate names both. Message ids are the source's own where the service takes
 * them as they are (the vendor sends them raw), else the same function of them.
 *
 * `collision-free` (the only rule up to 0.1.0): the service takes ids of at most 100 characters of
 * letters, digits, `_` and `-`, and lower-cases them (so `Bob` and `bob` would collide there):
 *   1. An id that is already lower case, within the alphabet, at most 100 characters and does not
 *      end like a transformed id (`--` + 16 base32 characters) is kept as it is.
 *   2. Any other id becomes a readable head (accents stripped, lower-cased, runs of other characters
 *      turned into `_`, cut to 82 characters) + `--` + 16 base32 characters of SHA-256 of the
 *      whole source id (80 bits).
 * Kept ids (1) never end like transformed ids (2), so the two sets cannot meet; two transformed
 * ids meet only if SHA-256 collides on 80 bits (about 1 in 10^9 for 10^7 changed ids).
 *
 * Under either rule the same source id always gives the same id, so re-runs and incremental imports
 * dedupe on the service.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { fsReason, makeFolderFor, STATE_FILE_MODE } from '../../checkpoint/state-files.js';
import type { EntityName } from '../../entities/types.js';
import type { IdRule } from '../../config/keys.js';
import { CheckpointError } from '../../errors.js';

export const MAX_ID_LENGTH = 100;
const HASH_CHARS = 16;
const SEPARATOR = '--';
const HEAD_CHARS = MAX_ID_LENGTH - HASH_CHARS - SEPARATOR.length;
const KEEPABLE = /^[a-z0-9_-]+$/;
const LOOKS_TRANSFORMED = /--[a-z2-7]{16}$/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
const OTHER_CHARS = /[^a-z0-9_-]+/g;
const EDGE_UNDERSCORES = /^_+|_+$/g;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const VENDOR_OTHER_CHAR = /[^a-z0-9_-]/g;
const VENDOR_HEAD_CHARS = 90;
/** What the service takes as an id as it is: letters, digits, `_` and `-`, at most 100 characters. */
const SERVICE_ID = /^[A-Za-z0-9_-]{1,100}$/;

export type { IdRule };
export const DEFAULT_ID_RULE: IdRule = 'vendor';

/**
 * The vendor's published id function (its `toCometChatId`), to the bit: apps log users in with it, so
 * the import must derive the same uids and guids.
 */
export function toVendorId(sourceId: string | number): string {
  const source = String(sourceId);
  const out = source.toLowerCase().replace(VENDOR_OTHER_CHAR, '_');
  if (out === source && out.length <= MAX_ID_LENGTH) return out;
  // Math.imul and >>> 0 keep the hash in 32 unsigned bits, as the vendor's JavaScript and Dart do.
  let hash = 0;
  for (const char of source) hash = (Math.imul(31, hash) + char.codePointAt(0)!) >>> 0;
  return `${out.slice(0, VENDOR_HEAD_CHARS)}_${hash.toString(36)}`;
}

/** A uid or guid for a source id under `rule`. */
export function serviceIdOf(rule: IdRule, sourceId: string | number): string {
  return rule === 'vendor' ? toVendorId(sourceId) : toServiceId(sourceId);
}

/**
 * A muid for a source message id under `rule`. The vendor's transform sends message ids raw
 * (`String(message_id)`, `message.id`, `message.sid`); one the service would refuse as it is
 * (other characters, too long) goes through its id function instead, so no message is refused for its id.
 */
export function messageIdOf(rule: IdRule, sourceId: string | number): string {
  if (rule !== 'vendor') return toServiceId(sourceId);
  const source = String(sourceId);
  return SERVICE_ID.test(source) ? source : toVendorId(source);
}

/** The `collision-free` rule's id for a source id (module comment); the only rule of 0.1.0. */
export function toServiceId(sourceId: string | number): string {
  const source = String(sourceId);
  if (source.length <= MAX_ID_LENGTH && KEEPABLE.test(source) && !LOOKS_TRANSFORMED.test(source)) return source;
  const head = source
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(OTHER_CHARS, '_')
    .replace(EDGE_UNDERSCORES, '')
    .slice(0, HEAD_CHARS);
  return `${head || 'id'}${SEPARATOR}${hashOf(source)}`;
}

/** 80 bits of SHA-256 in lower-case base32: 16 characters, all inside the id alphabet. */
function hashOf(source: string): string {
  const bytes = createHash('sha256').update(source, 'utf8').digest();
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; out.length < HASH_CHARS; i++) {
    buffer = (buffer << 8) | bytes[i];
    bits += 8;
    while (bits >= 5 && out.length < HASH_CHARS) {
      bits -= 5;
      out += BASE32[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/** Service ids of one kind of record; the preset asks it for every id it writes. */
export interface ServiceIds {
  of(sourceId: string | number): string;
}

/** Message ids under `rule`: each met about once, so nothing is kept. */
export function messageIds(rule: IdRule = DEFAULT_ID_RULE): ServiceIds {
  return { of: (sourceId) => messageIdOf(rule, sourceId) };
}

/**
 * Memoised transform for ids met again and again (senders, receivers, groups), under one rule. It
 * meets every user (or group) id the export uses, so it also notes the service ids that two export
 * ids share (`Alice` and `alice_11ptgg` under the vendor rule): validate names their records.
 */
export class IdCache implements ServiceIds {
  private readonly cache = new Map<string, string>();
  /** Service id -> the first source id that gave it. */
  private readonly firstSource = new Map<string, string>();
  /** Service ids given by more than one source id -> those source ids, in the order met. */
  readonly collisions = new Map<string, string[]>();
  /** The source ids met while a pre-pass fact is gathered (prepass-cache.ts), to meet again from the cache. */
  recording: Set<string> | undefined;

  constructor(private readonly rule: IdRule = DEFAULT_ID_RULE) {}

  of(sourceId: string | number): string {
    const key = String(sourceId);
    this.recording?.add(key);
    let id = this.cache.get(key);
    if (id === undefined) {
      id = serviceIdOf(this.rule, key);
      this.cache.set(key, id);
      this.noteSource(id, key);
    }
    return id;
  }

  private noteSource(id: string, sourceId: string): void {
    // Both rules give lower-case ids, so the service's lower-casing merges nothing more.
    const first = this.firstSource.get(id);
    if (first === undefined) this.firstSource.set(id, sourceId);
    else {
      const sources = this.collisions.get(id) ?? [first];
      sources.push(sourceId);
      this.collisions.set(id, sources);
    }
  }
}

/**
 * The id mapping file: NDJSON lines `{"entity","sourceId","id"}` for every user, group and message
 * a preset creates (members' ids derive from guid and uid). Written to a temporary name beside it
 * (mode 0600) while the preset plans; `commit` renames it into place, so a reader never sees half a
 * file and a run that does not get to send (locked, another migration's checkpoint) replaces nothing.
 * Without a file (validate) the lines go nowhere.
 */
export class IdMapWriter {
  private readonly temp: string | undefined;
  private out: WriteStream | undefined;
  private pending = '';
  /** Bytes handed to the file so far: where a copied or recorded stretch of lines starts. */
  private flushed = 0;
  private readonly seen: Record<'users' | 'groups', Set<string>> = { users: new Set(), groups: new Set() };

  constructor(private readonly file?: string) {
    this.temp = file === undefined ? undefined : `${file}.${process.pid}.tmp`;
  }

  async open(): Promise<void> {
    if (this.temp === undefined) return;
    const temp = this.temp;
    try {
      await makeFolderFor(temp);
      this.out = createWriteStream(temp, { encoding: 'utf8', mode: STATE_FILE_MODE });
      await new Promise<void>((resolve, reject) => {
        this.out!.once('open', () => resolve());
        this.out!.once('error', reject);
      });
    } catch (err) {
      throw this.unwritable(err);
    }
  }

  /** Adds a line; users and groups once per source id. */
  add(entity: Exclude<EntityName, 'members'>, sourceId: string, id: string): void {
    if (this.temp === undefined) return;
    if (entity !== 'messages') {
      const seen = this.seen[entity];
      if (seen.has(sourceId)) return;
      seen.add(sourceId);
    }
    this.pending += `${JSON.stringify({ entity, sourceId, id })}\n`;
  }

  /** True when enough is pending that the caller should `await flush()` (a pre-pass asks per record). */
  get needsFlush(): boolean {
    return this.pending.length >= 256 * 1024;
  }

  /** Hands what is pending to the file, waiting while the stream's buffer is full (back-pressure). */
  async flush(): Promise<void> {
    const out = this.out;
    if (out === undefined || this.pending === '') return;
    this.flushed += Buffer.byteLength(this.pending);
    const ok = out.write(this.pending);
    this.pending = '';
    if (!ok) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }

  /** Where the next line starts in the file being written (undefined without a file). */
  async offset(): Promise<number | undefined> {
    if (this.out === undefined) return undefined;
    await this.flush();
    return this.flushed;
  }

  /**
   * Copies a stretch of lines of the map in place (the last committed run's) into this one: the lines
   * of a file the pre-pass did not read again. Resolves false when the map there is shorter.
   */
  async copyCommitted(start: number, length: number): Promise<boolean> {
    const out = this.out;
    if (out === undefined || this.file === undefined) return true;
    await this.flush();
    if (length === 0) return true;
    let copied = 0;
    for await (const chunk of createReadStream(this.file, { start, end: start + length - 1 })) {
      copied += (chunk as Buffer).length;
      this.flushed += (chunk as Buffer).length;
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    return copied === length;
  }

  /** The map in place, the one `copyCommitted` reads from: its size, or undefined when there is none. */
  async committedSize(): Promise<number | undefined> {
    if (this.file === undefined) return undefined;
    return (await stat(this.file).catch(() => undefined))?.size;
  }

  /** Writes the rest and closes the temporary file; the map is complete but not yet in place. */
  async finish(): Promise<void> {
    await this.flush();
    const out = this.out;
    if (out === undefined) return;
    this.out = undefined;
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }

  /** Puts the finished map in place, replacing the previous run's. */
  async commit(): Promise<void> {
    if (this.temp === undefined || this.file === undefined) return;
    await rename(this.temp, this.file).catch((err: unknown) => {
      throw this.unwritable(err);
    });
  }

  /** Takes out the temporary file: the map is not this run's to put in place. */
  async discard(): Promise<void> {
    await this.finish().catch(() => undefined);
    if (this.temp !== undefined) await rm(this.temp, { force: true }).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.finish();
    await this.commit();
  }

  private unwritable(err: unknown): CheckpointError {
    return new CheckpointError('IDMAP_UNWRITABLE', `cannot write the id mapping file ${this.file}: ${fsReason(err)}`);
  }
}
