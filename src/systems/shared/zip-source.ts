/**
 * A `.zip` export read entry by entry (yauzl): the central directory is read once, each entry is a
 * stream, the archive is never loaded whole. Presets open entries one after another (thousands of
 * Slack day files), so the archive stays open while entries are being read and closes itself after
 * a short idle time instead of being reopened (and its directory re-read) for every entry.
 */
import type { Readable } from 'node:stream';
import { finished } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

const IDLE_CLOSE_MS = 2_000;

interface OpenZip {
  zip: ZipFile;
  entries: Map<string, Entry>;
}

export class ZipSource {
  private opening: Promise<OpenZip> | undefined;
  private active = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly zipPath: string) {}

  /** Names of the file entries (not directories), in archive order. */
  async names(): Promise<string[]> {
    const { entries } = await this.ensure();
    this.scheduleClose();
    return [...entries.keys()];
  }

  /** An entry's uncompressed size, from the central directory. */
  async sizeOf(name: string): Promise<number | undefined> {
    const { entries } = await this.ensure();
    this.scheduleClose();
    return entries.get(name)?.uncompressedSize;
  }

  async open(name: string): Promise<Readable> {
    clearTimeout(this.timer);
    this.active++;
    try {
      const { zip, entries } = await this.ensure();
      const entry = entries.get(name);
      if (entry === undefined) throw new Error(`no entry ${name} in ${this.zipPath}`);
      const stream = await zip.openReadStreamPromise(entry);
      finished(stream, () => this.release());
      return stream;
    } catch (error) {
      this.release();
      throw error;
    }
  }

  private release(): void {
    this.active--;
    if (this.active === 0) this.scheduleClose();
  }

  private scheduleClose(): void {
    clearTimeout(this.timer);
    if (this.active > 0) return;
    // unref: an idle archive must not keep the process alive.
    this.timer = setTimeout(() => void this.close(), IDLE_CLOSE_MS).unref();
  }

  private async close(): Promise<void> {
    const opening = this.opening;
    if (opening === undefined || this.active > 0) return;
    this.opening = undefined;
    try {
      (await opening).zip.close();
    } catch {
      // Opening failed: there is nothing to close.
    }
  }

  private ensure(): Promise<OpenZip> {
    this.opening ??= readDirectory(this.zipPath).catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }
}

async function readDirectory(zipPath: string): Promise<OpenZip> {
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false });
  const entries = new Map<string, Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: Entry) => {
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve());
    zip.once('error', reject);
    zip.readEntry();
  });
  return { zip, entries };
}
