/**
 * The media map: which source (a URL, or a file's absolute path) was stored under which object key.
 * NDJSON, one line appended per file once its object is in the bucket, so a resumed or repeated run
 * carries nothing twice. A crash can lose at most lines not yet written: their files are hashed again
 * and found in the bucket (HeadObject), never uploaded twice. A torn last line is skipped on load.
 * Created 0600 beside the checkpoint, like the other state files.
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { makeFolderFor, STATE_FILE_MODE } from '../checkpoint/state-files.js';

export interface MediaEntry {
  source: string;
  key: string;
  size: number;
  sha256: string;
  mimeType: string;
}

const isEntry = (v: unknown): v is MediaEntry => {
  const e = v as Partial<MediaEntry> | null;
  return (
    typeof e?.source === 'string' &&
    typeof e.key === 'string' &&
    typeof e.sha256 === 'string' &&
    typeof e.size === 'number' &&
    typeof e.mimeType === 'string'
  );
};

export class MediaMap {
  /** source -> entry. One entry per distinct source: the map grows with files, not with messages. */
  readonly bySource = new Map<string, MediaEntry>();
  /** Object keys known to be in the bucket. */
  readonly keys = new Set<string>();
  /** sha256 -> the key its bytes are stored under (the first one met: older maps may hold several). */
  private readonly byContent = new Map<string, string>();
  private tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
  ) {}

  static async open(path: string): Promise<MediaMap> {
    await makeFolderFor(path);
    const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    const file = await open(path, 'a', STATE_FILE_MODE);
    const map = new MediaMap(file, path);
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const entry: unknown = JSON.parse(line);
        if (isEntry(entry)) map.remember(entry);
      } catch {
        // A line torn by a crash mid-write: its file is carried again (and found in the bucket).
      }
    }
    // A torn last line must not swallow the next one appended.
    if (text !== '' && !text.endsWith('\n')) await file.write('\n');
    return map;
  }

  private remember(entry: MediaEntry): void {
    this.bySource.set(entry.source, entry);
    this.keys.add(entry.key);
    if (!this.byContent.has(entry.sha256)) this.byContent.set(entry.sha256, entry.key);
  }

  /** The key bytes with this sha256 are stored under, when the map knows one. */
  keyOfContent(sha256: string): string | undefined {
    return this.byContent.get(sha256);
  }

  /** Appends one line; writes go one after another (a FileHandle's writes must not overlap). */
  add(entry: MediaEntry): Promise<void> {
    this.remember(entry);
    const line = `${JSON.stringify(entry)}\n`;
    this.tail = this.tail.then(() => this.file.write(line)).then(() => undefined);
    return this.tail;
  }

  async close(): Promise<void> {
    await this.tail.catch(() => undefined);
    await this.file.sync().catch(() => undefined);
    await this.file.close();
  }
}
