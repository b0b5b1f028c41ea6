// Malformed exports written on the fly, one way of breaking a file each, for
// test/accounting.e2e.test.mjs and test/malformed-input.e2e.test.mjs.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeConfig } from './helpers.mjs';

/** Users u1..u229 on lines 2-230, except line 14 (u13), whose quote never closes. */
export function openQuoteCsv() {
  const rows = ['uid,name'];
  for (let i = 1; i <= 229; i++) rows.push(i === 13 ? `u${i},"Open quote name` : `u${i},User ${i}`);
  return `${rows.join('\n')}\n`;
}

/** One line: groups `<prefix>1` to `<prefix><count>`, the one after `good` of them missing a value (`"name":,`). */
export function minifiedGroups(prefix, count, good) {
  const records = [];
  for (let i = 1; i <= count; i++) {
    const name = i === good + 1 ? '"name":,' : `"name":"Group ${i} ${'x'.repeat(50)}",`;
    records.push(`{"guid":"${prefix}${i}",${name}"type":"public"}`);
  }
  return `[${records.join(',')}]`;
}

/** The column (1-based) of the syntax error of `minifiedGroups(...)`: the "," where the value should be. */
export function minifiedErrorColumn(text) {
  return text.indexOf('"name":,') + '"name":,'.length;
}

const MESSAGE = {
  muid: 'x1',
  sender: 'u1',
  receiverType: 'group',
  receiver: 't1',
  sentAt: 1600000000,
  type: 'text',
  data: { text: 'hi' },
};
/** Groups k1-k6, one a line; k4 on line 5 lacks the comma before it: a break, lines 5-8 not read. */
function brokenGroups() {
  const lines = [1, 2, 3, 4, 5, 6].map((i) => `  {"guid": "k${i}", "name": "K${i}", "type": "public"}`);
  return `[\n${lines.slice(0, 3).join(',\n')}\n${lines.slice(3).join(',\n')}\n]\n`;
}

/** Writes a folder of one broken file per kind (and a config naming them all); returns the folder. */
export async function writeMalformedExport(dir, config = {}) {
  const files = {
    'users-open-quote.csv': openQuoteCsv(),
    'users-bom.csv': '\ufeffuid,name\r\nb1,Bea\r\n\r\nb2,Bo\r\n',
    'users-blank.csv': '\n \n\t\n',
    'groups-min.json': minifiedGroups('t', 1500, 1001),
    'groups-three.json': minifiedGroups('s', 3, 2),
    'groups-broken.json': brokenGroups(),
    // The two groups before the broken third of groups-three.json: read, so no reference is missing.
    'members-refs.ndjson': `${['s1', 's2'].map((g) => JSON.stringify({ guid: g, uid: 'u1' })).join('\n')}\n`,
    // A UTF-8 file (its first line holds an é) with one broken sequence: that record's error, not the file's.
    'members-utf8.ndjson': Buffer.concat([
      Buffer.from('{"guid":"t1","uid":"u2","name":"é"}\n{"guid":"t1","uid":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n{"guid":"t1","uid":"u3"}\n'),
    ]),
    'members-blank-lines.ndjson': '\n{"guid":"t2","uid":"u2"}\r\n\r\n  \n{"guid":"t2","uid":"u3"}\n\n',
    'messages-empty.ndjson': '',
    'messages-blank.csv': '\n\n  \n',
    'messages-ok.ndjson': `${JSON.stringify(MESSAGE)}\n`,
  };
  const lines = [];
  for (let i = 0; i < 3000; i++) {
    lines.push(JSON.stringify({ guid: `t${1 + Math.floor(i / 200)}`, uid: `u${(i % 200) + 14}` }));
  }
  const gz = gzipSync(`${lines.join('\n')}\n`);
  files['members-cut.ndjson.gz'] = gz.subarray(0, Math.floor(gz.length * 0.6));
  for (const [name, body] of Object.entries(files)) await writeFile(path.join(dir, name), body);
  const sources = {
    users: { path: 'users-*.csv' },
    groups: { path: 'groups-*.json' },
    members: { path: 'members-*' },
    messages: { path: 'messages-*' },
  };
  await writeConfig(dir, { sources, requestsPerMinute: 6000, ...config });
  return dir;
}
