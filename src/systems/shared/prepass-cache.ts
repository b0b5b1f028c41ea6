/**
 * What a preset's pre-pass learnt of each message file, kept beside the checkpoint between runs
 * (`<checkpoint name>.prepass.json`), so a run finds the senders and channels of a file it has seen
 * before without reading it again: a `sync` round or a nightly import then reads what is new only.
 *
 * A file is looked up by its name in the export and known again only while its size, modification
 * time and the hashes of its first and last 64 KiB are those it had: anything else (edited, grown,
 * truncated, touched) is read again. The id map lines the file gave are copied from the map in place,
 * which is why the cache is written only with it (`save` after the map's commit) and used only while
 * that map is the one it was written with. A zip export has no files on disk: it is read every time.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { makeFolderFor, STATE_FILE_MODE } from '../../checkpoint/state-files.js';
import { CheckpointError } from '../../errors.js';
import { TOOL_VERSION } from '../../http/user-agent.js';
import { openFile } from '../../sources/read-blocks.js';
import type { ExportTree } from './export-tree.js';
import type { IdCache, IdMapWriter } from './ids.js';

const FORMAT = 1;

/** What of a preset's context the cache uses (context.ts holds the cache: this keeps the two apart). */
export interface PrepassContext {
  preset: string;
  options: object;
  tree: Pick<ExportTree, 'diskPath'>;
  idMap: IdMapWriter;
  uids: IdCache;
  guids: IdCache;
  read?: Set<string>;
}
const EDGE_BYTES = 64 * 1024;

/** How a file on disk looked when its facts were gathered. */
interface FileMark {
  size: number;
  mtimeMs: number;
  head: string;
  tail: string;
}

interface Entry extends FileMark {
  rel: string;
  /** Which of the preset's passes over the file gave the facts, when it makes more than one. */
  pass?: string;
  /** Hash of what else the gathering depended on (the file's channel as the index files say). */
  depends: string;
  facts: unknown;
  /** Source ids the gathering met (users, groups): met again so id collisions are still found. */
  uids: string[];
  guids: string[];
  /** Where its id map lines sit in the map written with this cache: [start byte, length]. */
  ids?: [number, number];
}

interface CacheFile {
  format: number;
  /** The preset, the tool's version and the options the facts depend on. */
  key: string;
  /** Size of the id map written with these entries: the map their `ids` point into. */
  idMapSize?: number;
  entries: Entry[];
}

export class PrepassCache {
  private readonly now: Entry[] = [];
  /** How each file looked when first looked at this run: `peek` and `factsOf` agree on it. */
  private readonly marks = new Map<string, FileMark>();
  /** Files some pass took from the cache this run, and files some pass read. */
  private readonly taken = new Set<string>();
  private readonly gathered = new Set<string>();

  private constructor(
    private readonly file: string | undefined,
    private readonly key: string,
    private readonly before: Map<string, Entry>,
  ) {}

  /** Files whose facts all came from the cache this run: the pre-pass did not read them. */
  get reused(): number {
    let n = 0;
    for (const rel of this.taken) if (!this.gathered.has(rel)) n++;
    return n;
  }

  /** No cache: every file is read (validate without a checkpoint, tests). */
  static none(): PrepassCache {
    return new PrepassCache(undefined, '', new Map());
  }

  /**
   * The cache at `file` for this preset and these options. Entries written with other options, another
   * version, or beside an id map that has changed since are not used.
   */
  static async open(file: string | undefined, ctx: PrepassContext): Promise<PrepassCache> {
    const key = `${ctx.preset} ${TOOL_VERSION} ${JSON.stringify(ctx.options)}`;
    if (file === undefined) return new PrepassCache(undefined, key, new Map());
    const kept = await readCacheFile(file);
    const usable = kept?.format === FORMAT && kept.key === key && (await idMapMatches(kept, ctx));
    const before = new Map(usable ? kept.entries.map((e) => [keyOf(e.rel, e.pass), e]) : []);
    return new PrepassCache(file, key, before);
  }

  /**
   * The facts of message file `rel`: from the cache when the file is as it was, else gathered (and
   * kept for the next run). `gather` may add only message lines to the id map: they are copied as
   * one stretch next time. `dependsOn`: what else than the file the facts depend on (JSON-able), so
   * a change there reads the file again. A preset that passes over a file more than once names each
   * `pass`: each has facts of its own.
   */
  async factsOf<F>(
    ctx: PrepassContext,
    rel: string,
    gather: () => Promise<F>,
    dependsOn?: unknown,
    pass?: string,
  ): Promise<F> {
    const disk = ctx.tree.diskPath(rel);
    if (this.file === undefined || disk === undefined) return gather();
    const { hit, mark, depends } = await this.kept(ctx, rel, disk, dependsOn, pass);
    const offset = await ctx.idMap.offset();
    if (hit !== undefined) {
      if (offset !== undefined && !(await ctx.idMap.copyCommitted(hit.ids![0], hit.ids![1])))
        throw new CheckpointError('IDMAP_UNWRITABLE', `the id map in place ended before the lines of ${rel}`, {
          hint: `delete ${this.file} (the pre-pass cache): the next run reads every file again`,
        });
      for (const id of hit.uids) ctx.uids.of(id);
      for (const id of hit.guids) ctx.guids.of(id);
      ctx.read?.add(rel);
      this.now.push({ ...hit, ids: offset === undefined ? undefined : [offset, hit.ids![1]] });
      this.taken.add(rel);
      return hit.facts as F;
    }
    const uids = new Set<string>();
    const guids = new Set<string>();
    ctx.uids.recording = uids;
    ctx.guids.recording = guids;
    let facts: F;
    try {
      facts = await gather();
    } finally {
      ctx.uids.recording = undefined;
      ctx.guids.recording = undefined;
    }
    const end = await ctx.idMap.offset();
    const ids: [number, number] | undefined = offset === undefined ? undefined : [offset, end! - offset];
    this.now.push({ rel, pass, depends, ...mark, facts, uids: [...uids], guids: [...guids], ids });
    this.gathered.add(rel);
    return facts;
  }

  /**
   * The facts kept of `rel` when the file is as it was, not taken yet (`factsOf` takes them, with their
   * id map lines): for a preset that needs a little of every file before it reads any in full.
   */
  async peek<F>(ctx: PrepassContext, rel: string, dependsOn?: unknown, pass?: string): Promise<F | undefined> {
    const disk = ctx.tree.diskPath(rel);
    if (this.file === undefined || disk === undefined) return undefined;
    return (await this.kept(ctx, rel, disk, dependsOn, pass)).hit?.facts as F | undefined;
  }

  /**
   * The entry of `rel` when it can be used: the file as it was, what else its facts depend on the
   * same (`depends`, its hash), its id map lines in the map in place.
   */
  private async kept(
    ctx: PrepassContext,
    rel: string,
    disk: string,
    dependsOn: unknown,
    pass: string | undefined,
  ): Promise<{ hit?: Entry; mark: FileMark; depends: string }> {
    const depends = dependsOn === undefined ? '' : hash(Buffer.from(JSON.stringify(dependsOn)));
    let mark = this.marks.get(rel);
    if (mark === undefined) this.marks.set(rel, (mark = await markOf(disk)));
    const hit = this.before.get(keyOf(rel, pass));
    const same = hit !== undefined && sameMark(hit, mark) && hit.depends === depends;
    const mapped = hit?.ids !== undefined || (await ctx.idMap.offset()) === undefined;
    return { hit: same && mapped ? hit : undefined, mark, depends };
  }

  /** Writes this run's entries, once the id map they point into is in place (`idMapSize`, its size). */
  async save(idMapSize: number | undefined): Promise<void> {
    if (this.file === undefined) return;
    const content: CacheFile = { format: FORMAT, key: this.key, idMapSize, entries: this.now };
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      await makeFolderFor(temp);
      await writeFile(temp, JSON.stringify(content), { mode: STATE_FILE_MODE });
      await rename(temp, this.file);
    } catch {
      // Only a saving: without it the next run reads every file, as the first did.
      await rm(temp, { force: true }).catch(() => undefined);
    }
  }

  /** Takes out the kept facts before the id map they point into is replaced (put back by `save`). */
  async forget(): Promise<void> {
    if (this.file !== undefined) await rm(this.file, { force: true }).catch(() => undefined);
  }
}

async function readCacheFile(file: string): Promise<CacheFile | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as CacheFile;
    return Array.isArray(parsed.entries) ? parsed : undefined;
  } catch {
    // Missing, cut short, not ours: every file is read, and the next run writes it anew.
    return undefined;
  }
}

/** The map the entries' `ids` point into is still in place, unchanged in size (or no map is written). */
async function idMapMatches(kept: CacheFile, ctx: PrepassContext): Promise<boolean> {
  if ((await ctx.idMap.offset()) === undefined) return true;
  return kept.idMapSize !== undefined && (await ctx.idMap.committedSize()) === kept.idMapSize;
}

async function markOf(disk: string): Promise<FileMark> {
  const handle = await openFile({ path: disk, display: disk });
  try {
    const { size, mtimeMs } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, EDGE_BYTES));
    await handle.read(head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(size, EDGE_BYTES));
    await handle.read(tail, 0, tail.length, size - tail.length);
    return { size, mtimeMs: Math.round(mtimeMs), head: hash(head), tail: hash(tail) };
  } finally {
    await handle.close();
  }
}

const keyOf = (rel: string, pass: string | undefined) => (pass === undefined ? rel : `${pass}\u0000${rel}`);

const sameMark = (a: FileMark, b: FileMark) =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.head === b.head && a.tail === b.tail;

const hash = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex').slice(0, 32);
