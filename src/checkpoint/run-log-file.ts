import { closeSync, fsyncSync, openSync, readSync, fstatSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { makeFolderFor, STATE_FILE_MODE } from './state-files.js';

/** One line of the run log: `type` says which; `t` is when it was written (epoch ms). */
export interface RunLogLine {
  type: string;
  t: number;
  /** The run that wrote it (a short random id), so lines of runs that overlap in time stay apart. */
  run: string;
  [field: string]: unknown;
}

/**
 * The run log on disk: NDJSON, append-only, created 0600. Each line goes out in one write(2) on a
 * descriptor opened for append, so a process that dies leaves whole lines, or at worst one cut
 * short at the end; the reader skips that one, and the next writer ends it first. Writes are
 * synchronous: at most about a line a second, they cost less than a promise chain keeping order.
 */
export class RunLogFile {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
  ) {}

  static async open(path: string): Promise<RunLogFile> {
    await makeFolderFor(path);
    const fd = openSync(path, 'a', STATE_FILE_MODE);
    const size = fstatSync(fd).size;
    if (size > 0) {
      // A line cut short by a crash: end it, so the next line starts on its own.
      const last = Buffer.alloc(1);
      const read = openSync(path, 'r');
      try {
        readSync(read, last, 0, 1, size - 1);
      } finally {
        closeSync(read);
      }
      if (last[0] !== 0x0a) writeSync(fd, '\n');
    }
    return new RunLogFile(path, fd);
  }

  append(line: RunLogLine): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  /** Puts the lines on disk and closes the file; appends after this are dropped. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fsyncSync(fd);
    } catch {
      // /dev/null, a pipe: nothing to sync.
    }
    closeSync(fd);
  }
}

/** What a run log holds: its lines, and how many could not be read (a torn last line, a hand edit). */
export interface RunLogContent {
  lines: RunLogLine[];
  unreadable: number;
}

/** Reads the run log; a missing file is an empty log. */
export async function readRunLog(path: string): Promise<RunLogContent> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], unreadable: 0 };
    throw err;
  }
  const lines: RunLogLine[] = [];
  let unreadable = 0;
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const line = JSON.parse(raw) as RunLogLine;
      if (line && typeof line === 'object' && typeof line.type === 'string') lines.push(line);
      else unreadable++;
    } catch {
      unreadable++;
    }
  }
  return { lines, unreadable };
}
