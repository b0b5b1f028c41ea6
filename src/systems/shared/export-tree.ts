/**
 * What `--from` points at, seen as one list of files whatever it is: a folder (walked), a `.zip`
 * (its entries) or a single file. Presets find their files by relative path (`general/2016-01-14.json`)
 * and open them as byte streams; nothing here reads a file whole.
 */
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { InputError } from '../../errors.js';
import { ZipSource } from './zip-source.js';

export interface ExportTree {
  kind: 'folder' | 'zip' | 'file';
  /** Relative paths with `/`, sorted by code unit so every machine lists them in the same order. */
  files: readonly string[];
  open(rel: string): Promise<Readable>;
  /** The file on disk (folders and single files), whose fingerprint the checkpoint keeps. */
  diskPath(rel: string): string | undefined;
  /** The file's size in bytes (uncompressed, for a zip entry), for estimates; undefined if unknown. */
  sizeOf(rel: string): Promise<number | undefined>;
  /** How records name the file: `export/general/2016-01-14.json` or `export.zip!general/2016-01-14.json`. */
  where(rel: string): string;
}

const ZIP_MAGIC = 0x04034b50;

export async function openExportTree(from: string, cwd: string): Promise<ExportTree> {
  let info;
  try {
    info = await stat(from);
  } catch (error) {
    throw new InputError('INPUT_NOT_FOUND', `cannot read the export at ${from}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const shown = showPath(from, cwd);
  if (info.isDirectory()) {
    const files = (await walk(from, '')).sort(byCodeUnit);
    return {
      kind: 'folder',
      files,
      open: async (rel) => createReadStream(path.join(from, rel)),
      diskPath: (rel) => path.join(from, rel),
      sizeOf: (rel) => sizeOnDisk(path.join(from, rel)),
      where: (rel) => `${shown}/${rel}`,
    };
  }
  if (await isZip(from)) {
    const zip = new ZipSource(from);
    let names: string[];
    try {
      names = await zip.names();
    } catch (error) {
      throw new InputError('INPUT_ZIP', `cannot read the zip ${from}: ${(error as Error).message}`, { cause: error });
    }
    return {
      kind: 'zip',
      files: names.filter((n) => !hidden(n)).sort(byCodeUnit),
      open: (rel) => zip.open(rel),
      diskPath: () => undefined,
      sizeOf: (rel) => zip.sizeOf(rel),
      where: (rel) => `${shown}!${rel}`,
    };
  }
  const name = path.basename(from);
  return {
    kind: 'file',
    files: [name],
    open: async () => createReadStream(from),
    diskPath: () => from,
    sizeOf: () => sizeOnDisk(from),
    where: () => shown,
  };
}

export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Files every preset ignores: dotfiles and the `__MACOSX` shadow folder of zips made on a Mac. */
function hidden(rel: string): boolean {
  return rel.split('/').some((part) => part.startsWith('.') || part === '__MACOSX');
}

async function walk(root: string, rel: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (hidden(entry.name)) continue;
    if (entry.isDirectory()) out.push(...(await walk(root, child)));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

async function isZip(file: string): Promise<boolean> {
  if (file.toLowerCase().endsWith('.zip')) return true;
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head.readUInt32LE(0) === ZIP_MAGIC;
  } finally {
    await handle.close();
  }
}

async function sizeOnDisk(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch {
    return undefined;
  }
}

function showPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  const shown = rel === '' ? '.' : !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
  return shown.split(path.sep).join('/');
}
