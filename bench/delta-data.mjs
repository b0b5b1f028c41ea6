// The delta section's export: users, groups and members as at scale 1, and the messages in files of a
// million each (ten at 10M), the shape of a real export that grows by files. Generated once per
// parameter set into its directory and reused while its manifest matches.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '../dist/sandbox/index.js';
import { groupRecord, manifestMatches, memberRecord, messageRecord, userRecord, writeNdjson } from './generate.mjs';

const VERSION = 1;

/**
 * Returns the export's files; `messages` is a glob over its message files.
 * @param {{ dir: string, users: number, groups: number, members: number, messages: number, perFile?: number }} params
 * @param {(line: string) => void} [log]
 */
export function ensureDeltaDataset({ dir, users, groups, members, messages, perFile = 1_000_000 }, log = () => {}) {
  const manifest = { version: VERSION, users, groups, members, messages, perFile };
  const manifestFile = path.join(dir, 'manifest.json');
  const fileCount = Math.ceil(messages / perFile);
  const messageFile = (k) => path.join(dir, `messages-${String(k).padStart(3, '0')}.ndjson`);
  const files = {
    dir,
    users: path.join(dir, 'users.ndjson'),
    groups: path.join(dir, 'groups.ndjson'),
    members: path.join(dir, 'members.ndjson'),
    messages: path.join(dir, 'messages-*.ndjson'),
    messageFiles: Array.from({ length: fileCount }, (_, k) => messageFile(k)),
    nextMessageFile: messageFile(fileCount),
    params: manifest,
  };
  if (manifestMatches(manifestFile, manifest)) return files;
  const started = Date.now();
  log(`generating the delta export (${messages} messages in ${fileCount} files) into ${dir} ...`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeNdjson(files.users, users, (i) => userRecord(i));
  writeNdjson(files.groups, groups, (i) => groupRecord(i, users));
  writeNdjson(files.members, members, (i) => memberRecord(i, users, groups));
  const rand = mulberry32(42);
  for (let k = 0; k < fileCount; k++) {
    const first = k * perFile;
    const count = Math.min(perFile, messages - first);
    writeNdjson(messageFile(k), count, (i) => messageRecord(first + i, users, groups, rand));
  }
  writeFileSync(`${manifestFile}.tmp`, JSON.stringify(manifest));
  renameSync(`${manifestFile}.tmp`, manifestFile);
  log(`generated the delta export in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return files;
}

/**
 * Writes `count` new messages, numbered after the export's own, as one more message file. Its name
 * is the run's own: a checkpoint kept from an earlier run (`--delta-reuse`) has not seen it.
 */
export function writeDeltaFile(files, count) {
  const { users, groups, messages } = files.params;
  const rand = mulberry32(7);
  const file = files.nextMessageFile.replace(/\.ndjson$/, `-${Date.now()}.ndjson`);
  writeNdjson(file, count, (i) => messageRecord(messages + i, users, groups, rand));
  return file;
}
