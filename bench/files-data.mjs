// The many-files exports of the bench's `files` section (issue 14): a plain export whose messages are
// spread over thousands of small NDJSON files, and a Slack workspace of thousands of day files. Both
// are seeded, generated once per parameter set under bench/data/ and reused while the manifest matches.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '../dist/sandbox/index.js';
import { DATA_DIR, groupRecord, memberRecord, messageRecord, userRecord } from './generate.mjs';

/** Bump when a layout or record shape changes, so stale data sets are not reused. */
const VERSION = 1;
const ndjson = (records) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const pad = (n, width) => String(n).padStart(width, '0');

/**
 * The data set in `dir` when its manifest matches `params`, else generated anew by `write(dir)`,
 * which returns the counts to keep; the manifest goes last, so a cut-short generation is redone.
 */
function reuseOrGenerate(key, params, write, log) {
  const dir = path.join(DATA_DIR, key);
  const manifestFile = path.join(dir, 'manifest.json');
  const wanted = JSON.stringify({ version: VERSION, ...params });
  if (existsSync(manifestFile)) {
    try {
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
      if (JSON.stringify({ ...manifest, counts: undefined }) === wanted) return { dir, counts: manifest.counts };
    } catch {
      // a torn manifest: generate again
    }
  }
  const started = Date.now();
  log(`generating ${key} ...`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const counts = write(dir);
  writeFileSync(`${manifestFile}.tmp`, JSON.stringify({ version: VERSION, ...params, counts }));
  renameSync(`${manifestFile}.tmp`, manifestFile);
  log(`generated ${key} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { dir, counts };
}

/**
 * Users, groups and members in one NDJSON file each, and the messages in `files` NDJSON files
 * (messages/part-NNNNN.ndjson, read in that order) of `minPerFile`..`maxPerFile` messages each.
 * Returns { dir, counts, sources, files }; the sources are absolute paths and a glob.
 * @param {{ files?: number, minPerFile?: number, maxPerFile?: number, users?: number, groups?: number,
 *   members?: number, seed?: number }} [params]
 * @param {(line: string) => void} [log]
 */
export function ensureManyFilesExport(
  { files = 2000, minPerFile = 1, maxPerFile = 9, users = 500, groups = 50, members = 1000, seed = 14 } = {},
  log = () => {},
) {
  const params = { kind: 'many-files', files, minPerFile, maxPerFile, users, groups, members, seed };
  const key = `files-ndjson-f${files}-${minPerFile}to${maxPerFile}-u${users}-g${groups}-mb${members}-s${seed}`;
  const { dir, counts } = reuseOrGenerate(
    key,
    params,
    (out) => {
      const at = (name) => path.join(out, name);
      writeFileSync(at('users.ndjson'), ndjson(Array.from({ length: users }, (_, i) => userRecord(i))));
      writeFileSync(at('groups.ndjson'), ndjson(Array.from({ length: groups }, (_, i) => groupRecord(i, users))));
      const memberList = Array.from({ length: members }, (_, i) => memberRecord(i, users, groups));
      writeFileSync(at('members.ndjson'), ndjson(memberList));
      mkdirSync(at('messages'));
      const rand = mulberry32(seed);
      let messages = 0;
      for (let f = 0; f < files; f++) {
        const n = minPerFile + Math.floor(rand() * (maxPerFile - minPerFile + 1));
        const records = [];
        for (let k = 0; k < n; k++) records.push(messageRecord(messages++, users, groups, rand));
        writeFileSync(at(`messages/part-${pad(f, 5)}.ndjson`), ndjson(records));
      }
      return { users, groups, members, messages };
    },
    log,
  );
  const sources = {
    users: { path: path.join(dir, 'users.ndjson') },
    groups: { path: path.join(dir, 'groups.ndjson') },
    members: { path: path.join(dir, 'members.ndjson') },
    messages: { path: path.join(dir, 'messages', '*.ndjson') },
  };
  return { dir, counts, sources, files };
}

const DAY = 86_400;
/** 2020-01-01T00:00:00Z: the workspace's first day. */
const FIRST_DAY = 1_577_836_800;
const isoDay = (seconds) => new Date(seconds * 1000).toISOString().slice(0, 10);

/**
 * A Slack workspace export as the `slack` preset reads it: users.json, channels.json and one folder
 * per channel of `days` day files (<channel>/<YYYY-MM-DD>.json) of `minPerDay`..`maxPerDay` messages.
 * Every sender is a listed member of the channel, so nothing is created from messages or skipped:
 * the sandbox must store exactly `counts`.
 * @param {{ channels?: number, days?: number, minPerDay?: number, maxPerDay?: number, users?: number,
 *   membersPerChannel?: number, seed?: number }} [params]
 * @param {(line: string) => void} [log]
 */
export function ensureSlackWorkspace(
  { channels = 12, days = 250, minPerDay = 1, maxPerDay = 9, users = 200, membersPerChannel = 20, seed = 14 } = {},
  log = () => {},
) {
  const params = { kind: 'slack', channels, days, minPerDay, maxPerDay, users, membersPerChannel, seed };
  const key = `files-slack-c${channels}-d${days}-${minPerDay}to${maxPerDay}-u${users}-mc${membersPerChannel}-s${seed}`;
  const { dir, counts } = reuseOrGenerate(
    key,
    params,
    (out) => {
      const rand = mulberry32(seed);
      const uid = (i) => `U${pad(i, 7)}`;
      const userList = Array.from({ length: users }, (_, i) => ({
        id: uid(i),
        name: `user${i}`,
        real_name: `User ${i}`,
        deleted: false,
        profile: {
          real_name: `User ${i}`,
          display_name: `user${i}`,
          image_192: `https://cdn.example.com/${uid(i)}.png`,
        },
      }));
      writeFileSync(path.join(out, 'users.json'), JSON.stringify(userList, null, 2));
      const channelList = Array.from({ length: channels }, (_, c) => {
        const members = Array.from({ length: membersPerChannel }, (_, k) => uid((c * 13 + k) % users));
        const name = `channel-${pad(c, 2)}`;
        return { id: `C${pad(c, 8)}`, name, created: String(FIRST_DAY - DAY), creator: members[0], members };
      });
      writeFileSync(path.join(out, 'channels.json'), JSON.stringify(channelList, null, 2));
      let messages = 0;
      for (const channel of channelList) {
        mkdirSync(path.join(out, channel.name));
        for (let d = 0; d < days; d++) {
          const start = FIRST_DAY + d * DAY;
          const n = minPerDay + Math.floor(rand() * (maxPerDay - minPerDay + 1));
          const day = Array.from({ length: n }, (_, k) => ({
            type: 'message',
            user: channel.members[Math.floor(rand() * channel.members.length)],
            text: `day ${d} message ${k} in <#${channel.id}>`,
            ts: `${start + 600 * k + Math.floor(rand() * 500)}.${pad(k + 1, 6)}`,
          }));
          messages += n;
          writeFileSync(path.join(out, channel.name, `${isoDay(start)}.json`), JSON.stringify(day, null, 2));
        }
      }
      return { users, groups: channels, members: channels * membersPerChannel, messages };
    },
    log,
  );
  return { dir, counts, files: channels * days };
}
