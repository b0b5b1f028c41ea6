// Deterministic export generator for the bench: users, groups, members (NDJSON) and messages in
// NDJSON, CSV and a JSON array, all holding the same records. A data set is generated once per
// parameter set into bench/data/<key>/ and reused while its manifest matches.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../dist/sandbox/index.js';

export const DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url));
/** Bump when the record shapes change, so stale data sets are not reused. */
const GENERATOR_VERSION = 2;
/** sentAt of the first message; every timestamp stays well in the past. */
const EPOCH = 1_600_000_000;

const pad = (n, width) => String(n).padStart(width, '0');
export const uidOf = (i) => `u${pad(i, 6)}`;
export const guidOf = (i) => `g${pad(i, 5)}`;
export const muidOf = (i) => `m${pad(i, 8)}`;

const WORDS = [
  'hello',
  'team',
  'the',
  'release',
  'is',
  'ready',
  'for',
  'review',
  'café',
  'déjà',
  'vu',
  'meeting',
  'at',
  'noon',
  'please',
  'check',
  'logs',
  'deploy',
  'rollback',
  'thanks',
  '👋',
  'ok',
  'lunch?',
  'see',
  'you',
  'tomorrow',
  'ticket',
  'merged',
  'build',
  'green',
  'red',
  'customer',
  'asked',
  'about',
  'invoice',
  'größe',
  '東京',
  'weekend',
];

/** Buffered synchronous writer: one write call per ~1 MB, not per record. */
class FileWriter {
  constructor(file) {
    this.fd = openSync(file, 'w');
    this.parts = [];
    this.size = 0;
  }
  write(text) {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= 1 << 20) this.flush();
  }
  flush() {
    if (this.parts.length === 0) return;
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }
  close() {
    this.flush();
    closeSync(this.fd);
  }
}

export function userRecord(i) {
  return {
    uid: uidOf(i),
    name: `User ${i}`,
    avatar: `https://cdn.example.com/avatars/${uidOf(i)}.png`,
    role: i % 10 === 0 ? 'admin' : 'default',
    createdAt: EPOCH - 1_000_000 + i,
    metadata: { department: `team-${i % 17}` },
    tags: ['imported'],
  };
}

export function groupRecord(i, users) {
  return {
    guid: guidOf(i),
    name: `Group ${i}`,
    type: i % 3 === 0 ? 'private' : 'public',
    owner: uidOf(i % users),
    createdAt: EPOCH - 500_000 + i,
    metadata: { topic: `topic ${i % 29}` },
    tags: ['imported'],
  };
}

/** Members fill groups in turn, each with distinct users, joined after the group was created. */
export function memberRecord(i, users, groups) {
  const g = i % groups;
  const k = Math.floor(i / groups);
  return {
    guid: guidOf(g),
    uid: uidOf((g * 37 + k) % users),
    scope: k === 0 ? 'admin' : k % 10 === 0 ? 'moderator' : 'participant',
    joinedAt: EPOCH - 400_000 + i,
  };
}

export function messageRecord(i, users, groups, rand) {
  const toGroup = rand() < 0.7;
  const sender = Math.floor(rand() * users);
  let receiver = Math.floor(rand() * (toGroup ? groups : users));
  if (!toGroup && receiver === sender) receiver = (receiver + 1) % users;
  const words = 4 + Math.floor(rand() * 16);
  let text = '';
  for (let w = 0; w < words; w++) text += (w ? ' ' : '') + WORDS[Math.floor(rand() * WORDS.length)];
  if (rand() < 0.15) text += ', "quoted", and more';
  const data = { text };
  if (rand() < 0.2) data.metadata = { edited: rand() < 0.5, client: 'web' };
  const record = {
    muid: muidOf(i),
    sender: uidOf(sender),
    receiverType: toGroup ? 'group' : 'user',
    receiver: toGroup ? guidOf(receiver) : uidOf(receiver),
    sentAt: EPOCH + i * 3,
    category: 'message',
    type: 'text',
    data,
  };
  if (rand() < 0.1) record.tags = ['imported', 'archive'];
  return record;
}

const CSV_COLUMNS = [
  'muid',
  'sender',
  'receiverType',
  'receiver',
  'sentAt',
  'category',
  'type',
  'data.text',
  'data.metadata',
  'tags',
];

function csvCell(value) {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRow(r) {
  return [
    r.muid,
    r.sender,
    r.receiverType,
    r.receiver,
    r.sentAt,
    r.category,
    r.type,
    r.data.text,
    r.data.metadata,
    r.tags,
  ]
    .map(csvCell)
    .join(',');
}

export function writeNdjson(file, count, make) {
  const out = new FileWriter(file);
  for (let i = 0; i < count; i++) out.write(`${JSON.stringify(make(i))}\n`);
  out.close();
}

function writeMessages(dir, params, formats) {
  const writers = {};
  if (formats.includes('ndjson')) writers.ndjson = new FileWriter(path.join(dir, 'messages.ndjson'));
  if (formats.includes('csv')) {
    writers.csv = new FileWriter(path.join(dir, 'messages.csv'));
    writers.csv.write(`${CSV_COLUMNS.join(',')}\n`);
  }
  if (formats.includes('json')) {
    writers.json = new FileWriter(path.join(dir, 'messages.json'));
    writers.json.write('[\n');
  }
  const rand = mulberry32(params.seed);
  for (let i = 0; i < params.messages; i++) {
    const r = messageRecord(i, params.users, params.groups, rand);
    if (writers.ndjson || writers.json) {
      const json = JSON.stringify(r);
      writers.ndjson?.write(`${json}\n`);
      writers.json?.write(i === 0 ? json : `,\n${json}`);
    }
    writers.csv?.write(`${csvRow(r)}\n`);
  }
  writers.json?.write('\n]\n');
  for (const w of Object.values(writers)) w.close();
}

/** Whether a data set's manifest is there and says it was made with these parameters. */
export function manifestMatches(manifestFile, manifest) {
  if (!existsSync(manifestFile)) return false;
  try {
    return JSON.stringify(JSON.parse(readFileSync(manifestFile, 'utf8'))) === JSON.stringify(manifest);
  } catch {
    return false; // a torn manifest: generate again
  }
}

/**
 * Returns the files of a data set, generating it when absent or made with other parameters.
 * params: { users, groups, members, messages, formats: ['ndjson','csv','json'], seed? }
 * @param {(line: string) => void} [log]
 */
export function ensureDataset(params, log = () => {}) {
  const p = { seed: 42, ...params, formats: [...params.formats].sort() };
  if (p.users < 1 || p.groups < 1) throw new Error('a data set needs at least one user and one group');
  if (Math.ceil(p.members / p.groups) > p.users) throw new Error('more members per group than users');
  const key = `u${p.users}-g${p.groups}-mb${p.members}-m${p.messages}-${p.formats.join('+')}-s${p.seed}`;
  const dir = path.join(DATA_DIR, key);
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = { version: GENERATOR_VERSION, ...p };
  const files = {
    dir,
    users: path.join(dir, 'users.ndjson'),
    groups: path.join(dir, 'groups.ndjson'),
    members: path.join(dir, 'members.ndjson'),
    messages: Object.fromEntries(p.formats.map((f) => [f, path.join(dir, `messages.${f}`)])),
    params: p,
    generated: false,
  };
  if (manifestMatches(manifestFile, manifest)) return files;
  const started = Date.now();
  log(`generating ${key} ...`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeNdjson(files.users, p.users, (i) => userRecord(i));
  writeNdjson(files.groups, p.groups, (i) => groupRecord(i, p.users));
  writeNdjson(files.members, p.members, (i) => memberRecord(i, p.users, p.groups));
  writeMessages(dir, p, p.formats);
  // The manifest goes last: a run cut short mid-generation leaves no manifest, so it is redone.
  writeFileSync(`${manifestFile}.tmp`, JSON.stringify(manifest));
  renameSync(`${manifestFile}.tmp`, manifestFile);
  log(`generated ${key} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { ...files, generated: true };
}
