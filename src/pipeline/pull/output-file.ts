/**
 * One file a pull writes, page by page: `<file>.partial` until its stream ends, then renamed, so an
 * import never reads half a file. Items go one per line (a preset's errors then name a useful line).
 * Resumed, the file is cut back to the length the journal last committed: a page written but not
 * journalled before a kill is dropped, and fetched again.
 */
import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileLayout } from '../../systems/shared/pull-types.js';

export class OutputFile {
  private fd?: FileHandle;
  /** What opens and closes the document ('' for NDJSON), each on its own line. */
  private readonly head: string;
  private readonly tail: string;

  private constructor(
    private readonly finalPath: string,
    private readonly layout: FileLayout,
    /** Bytes committed so far (0: not created yet), and items in them. */
    public bytes: number,
    public items: number,
  ) {
    this.head = layout === 'ndjson' ? '' : `${layout.json.head}\n`;
    this.tail = layout === 'ndjson' ? '' : `\n${layout.json.tail}\n`;
  }

  get partialPath(): string {
    return `${this.finalPath}.partial`;
  }

  /** The file at `finalPath`, as the journal left it (`bytes`, `items`); created on the first append. */
  static async resume(finalPath: string, layout: FileLayout, bytes: number, items: number): Promise<OutputFile> {
    const file = new OutputFile(finalPath, layout, bytes, items);
    if (bytes > 0) {
      file.fd = await open(file.partialPath, 'r+');
      await file.fd.truncate(bytes);
    }
    return file;
  }

  /** Appends `items`; the new committed length, for the journal. */
  async append(items: readonly unknown[]): Promise<number> {
    if (items.length === 0) return this.bytes;
    let text = '';
    if (this.fd === undefined) {
      await mkdir(path.dirname(this.finalPath), { recursive: true });
      this.fd = await open(this.partialPath, 'w');
      text = this.head;
    }
    const ndjson = this.layout === 'ndjson';
    for (const item of items) {
      const json = JSON.stringify(item);
      text += ndjson ? `${json}\n` : `${this.items > 0 ? ',\n' : ''}${json}`;
      this.items++;
    }
    const chunk = Buffer.from(text);
    await this.fd.write(chunk, 0, chunk.length, this.bytes);
    this.bytes += chunk.length;
    return this.bytes;
  }

  /**
   * Writes the tail and renames the file into place. With no item, `always` writes an empty document
   * (a full pull's users.json even when there are none); else no file at all.
   */
  async finish(always: boolean): Promise<boolean> {
    if (this.fd === undefined) {
      if (!always) return false;
      await mkdir(path.dirname(this.finalPath), { recursive: true });
      this.fd = await open(this.partialPath, 'w');
      await this.fd.write(this.head, 0);
      this.bytes = Buffer.byteLength(this.head);
    }
    if (this.tail !== '') await this.fd.write(this.tail, this.bytes);
    await this.fd.close();
    this.fd = undefined;
    await rename(this.partialPath, this.finalPath);
    return true;
  }

  async close(): Promise<void> {
    await this.fd?.close();
    this.fd = undefined;
  }
}
