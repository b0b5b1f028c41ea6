// Fuzz: a few thousand randomly corrupted export files (from the valid fixtures, with a seeded PRNG),
// about 200 per `validate --json` run. Whatever the bytes, validate must finish with a JSON report,
// locate every problem to a file of the run and a line inside it, exit 0 or 3 as its errors say, and
// never print a stack trace. `npm test` makes one run; the slow tier 12 (FUZZ_RUNS). Reproduce a failure
// with the printed seed:
//   FUZZ_SEED=<seed> FUZZ_RUNS=12 node --test test/process/fuzz.e2e.test.mjs   (FUZZ_KEEP=1 keeps the files)
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { RULES } from '../../dist/rules/index.js';
import { MAPPER_CODES, READER_CODES } from '../fixtures-invalid-cases.mjs';
import { collect, FIXTURES, spawnCli, tempDir, writeConfig } from '../helpers.mjs';
import { mulberry32 } from '../../dist/sandbox/index.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1);
const FILES_PER_RUN = 200;
const RUN_TIMEOUT_MS = 60_000;
const DEPTH = 100_000;
const STACK = /\n\s+at /;
const KNOWN_CODES = new Set([...RULES.map((r) => r.code), ...MAPPER_CODES, ...READER_CODES]);
// Deep nesting inside a field the rules serialise once crashed the run (stack overflow); it is now the
// problem value.too-deep. Set this to a reason to leave that corruption out of the batches again.
const KNOWN_BUG_DEEP_FIELD = '';
// validate is offline: no target configured (empty variables count as unset).
const NO_TARGET = { MIGRATE_BASE_URL: '', MIGRATE_APP_ID: '', MIGRATE_REGION: '' };

/** The sandbox's mulberry32: the same sequence on every machine for a seed. */
function prng(seed) {
  const next = mulberry32(seed);
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (list) => list[int(list.length)], range: (lo, hi) => lo + int(hi - lo + 1) };
}

/** Valid inputs to corrupt, per entity and format. */
async function loadSeeds() {
  const read = (name) => readFile(path.join(FIXTURES, name));
  const messageLines = (await read('messages.ndjson')).toString('utf8').split('\n').filter(Boolean).slice(0, 60);
  const messageObjects = messageLines.map((l) => JSON.parse(l));
  const groups = JSON.parse((await read('groups.json')).toString('utf8'));
  return [
    { entity: 'users', ext: 'csv', bytes: await read('users.csv') },
    { entity: 'groups', ext: 'json', bytes: await read('groups.json') },
    {
      entity: 'groups',
      ext: 'json',
      bytes: Buffer.from(JSON.stringify({ groups: Object.fromEntries(groups.map((g) => [g.guid, g])) })),
    },
    { entity: 'members', ext: 'ndjson', bytes: await read('members.ndjson') },
    { entity: 'messages', ext: 'ndjson', bytes: Buffer.from(`${messageLines.join('\n')}\n`) },
    { entity: 'messages', ext: 'csv', bytes: await read('messages-archive.csv') },
    { entity: 'messages', ext: 'json', bytes: Buffer.from(JSON.stringify(messageObjects, null, 2)) },
    {
      entity: 'messages',
      ext: 'json',
      bytes: Buffer.from(JSON.stringify(Object.fromEntries(messageObjects.map((m) => [m.muid, m])))),
    },
  ];
}

const STRUCTURAL = [...'{}[],:"\n\r\\ 0aé'].map((c) => Buffer.from(c));
const BAD_UTF8 = [
  [0xc3, 0x28],
  [0xff],
  [0xfe, 0xff],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0x80],
].map((b) => Buffer.from(b));
const splice = (buf, at, del, insert = Buffer.alloc(0)) =>
  Buffer.concat([buf.subarray(0, at), insert, buf.subarray(at + del)]);
const nested = (n, open = '[', close = ']') => open.repeat(n) + close.repeat(n);

/** Corruptions: each takes the seed's bytes and returns the corrupted file (and maybe a gzip flag). */
const KINDS = {
  truncate: (r, s) => s.bytes.subarray(0, r.int(s.bytes.length)),
  flip: (r, s) => {
    const b = Buffer.from(s.bytes);
    for (let k = r.range(1, 32); k > 0; k--) b[r.int(b.length)] ^= r.range(1, 255);
    return b;
  },
  insert: (r, s) => {
    let b = s.bytes;
    for (let k = r.range(1, 16); k > 0; k--) b = splice(b, r.int(b.length + 1), 0, r.pick(STRUCTURAL));
    return b;
  },
  'delete-range': (r, s) => {
    const at = r.int(s.bytes.length);
    return splice(s.bytes, at, r.range(1, 400));
  },
  'duplicate-range': (r, s) => {
    const at = r.int(s.bytes.length);
    const piece = s.bytes.subarray(at, at + r.range(1, 2000));
    return splice(s.bytes, r.int(s.bytes.length), 0, piece);
  },
  'shift-columns': (r, s) => {
    // a separator or quote more or less on some lines: CSV rows change width, JSON loses its shape
    const lines = s.bytes.toString('utf8').split('\n');
    const sep = s.ext === 'csv' ? [',', '"', ',,'] : [',', '"', ':', '{', '}', '[', ']'];
    for (let k = r.range(1, 8); k > 0; k--) {
      const i = r.int(lines.length);
      const line = lines[i];
      const at = r.int(line.length + 1);
      lines[i] = r.next() < 0.5 ? line.slice(0, at) + r.pick(sep) + line.slice(at) : line.replace(r.pick(sep), '');
    }
    return Buffer.from(lines.join('\n'));
  },
  'swap-lines': (r, s) => {
    const lines = s.bytes.toString('utf8').split('\n');
    for (let k = r.range(1, 6); k > 0; k--) {
      const i = r.int(lines.length);
      const j = r.int(lines.length);
      [lines[i], lines[j]] = [lines[j], lines[i]];
    }
    return Buffer.from(lines.join('\n'));
  },
  'bad-utf8': (r, s) => {
    let b = s.bytes;
    for (let k = r.range(1, 6); k > 0; k--) b = splice(b, r.int(b.length + 1), 0, r.pick(BAD_UTF8));
    return b;
  },
  'line-endings': (r, s) => {
    const text = s.bytes.toString('latin1');
    const pick = r.pick(['\r\n', '\r', '\n\n', '\0\n', '\x85\n']);
    return Buffer.from(
      text.replace(/\n/g, () => (r.next() < 0.3 ? pick : '\n')),
      'latin1',
    );
  },
  binary: (r) => {
    const b = Buffer.alloc(r.range(1, 64 * 1024));
    for (let i = 0; i < b.length; i++) b[i] = r.int(256);
    return b;
  },
  empty: (r) => Buffer.from(r.pick(['', '\ufeff', '\ufeff\n', ' \n\t\r\n', '\n\n\n', '\ufeff\ufeff'])),
  // deep nesting of the document itself, of a record, or of a field the mapper drops
  deep: (r, s) => {
    const form = r.int(5);
    if (form === 0) return Buffer.from(nested(DEPTH));
    if (form === 1) return Buffer.from('['.repeat(DEPTH)); // never closed
    if (form === 2) return Buffer.from(`${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`);
    if (s.ext === 'csv') return Buffer.concat([s.bytes, Buffer.from(`\n${nested(DEPTH)}\n`)]);
    const record = `{"uid":"deep1","muid":"deep1","guid":"deep1","name":"Deep","unknownField":${nested(DEPTH)}}`;
    if (s.ext === 'ndjson')
      return Buffer.concat([s.bytes, Buffer.from(form === 3 ? `${nested(DEPTH)}\n` : `${record}\n`)]);
    return Buffer.from(form === 3 ? `[${nested(DEPTH)}]` : `[${record}]`);
  },
  'deep-field': (_r, s) => {
    // deep nesting where the rules serialise it: value.too-deep, once a crash
    const deep = nested(DEPTH);
    const rec = {
      users: `{"uid":"df1","name":"D","metadata":{"x":${deep}}}`,
      messages:
        '{"muid":"df1","sender":"u001","receiverType":"user","receiver":"u002","sentAt":1600000000,' +
        `"type":"text","data":{"text":"t","x":${deep}}}`,
    };
    const record = rec[s.entity] ?? rec.messages;
    return s.ext === 'ndjson'
      ? Buffer.concat([s.bytes, Buffer.from(`${record}\n`)])
      : s.ext === 'json'
        ? Buffer.from(`[${record}]`)
        : s.bytes;
  },
  huge: (r, s) => {
    const size = r.range(3, 6) * 1024 * 1024;
    const form = r.int(4);
    if (form === 0) return Buffer.alloc(size, 'x'); // one line, no newline at all
    if (s.ext === 'csv') {
      const header = s.bytes.subarray(0, s.bytes.indexOf(0x0a) + 1);
      return Buffer.concat([
        header,
        Buffer.from('big1,"'),
        Buffer.alloc(size, 'y'),
        Buffer.from(form === 1 ? '"\n' : '\n'),
      ]);
    }
    const text = Buffer.alloc(size, 'z').toString();
    const record = JSON.stringify({
      uid: 'big1',
      muid: 'big1',
      guid: 'big1',
      name: text,
      sender: 'u001',
      receiverType: 'user',
      receiver: 'u002',
      sentAt: 1600000000,
      type: 'text',
      data: { text },
    });
    if (s.ext === 'ndjson')
      return Buffer.concat([s.bytes, Buffer.from(form === 1 ? `${record}\n` : record.slice(0, -2))]);
    return Buffer.from(form === 1 ? `[${record}]` : `[${record}`);
  },
  'gzip-truncated': (r, s) => {
    const gz = gzipSync(s.bytes);
    return { bytes: gz.subarray(0, r.int(gz.length)), gzip: true };
  },
  'gzip-flipped': (r, s) => {
    const gz = Buffer.from(gzipSync(s.bytes));
    for (let k = r.range(1, 8); k > 0; k--) gz[r.int(gz.length)] ^= r.range(1, 255);
    return { bytes: gz, gzip: true };
  },
  'gzip-trailing-garbage': (r, s) => ({
    bytes: Buffer.concat([gzipSync(s.bytes), Buffer.from(r.pick(['garbage', '\0\0\0', '\x1f\x8b']))]),
    gzip: true,
  }),
  'gzip-of-corrupt': (r, s) => ({
    bytes: gzipSync(KINDS[r.pick(['truncate', 'flip', 'bad-utf8', 'shift-columns'])](r, s)),
    gzip: true,
  }),
  'gzip-not-gzip': (r, s) => ({ bytes: s.bytes.subarray(0, r.range(0, 64)), gzip: true }),
  combined: (r, s) => {
    let bytes = s.bytes;
    for (let k = r.range(2, 3); k > 0; k--)
      bytes = KINDS[r.pick(['truncate', 'flip', 'insert', 'delete-range', 'shift-columns', 'bad-utf8', 'swap-lines'])](
        r,
        { ...s, bytes },
      );
    return bytes;
  },
};
/** Expensive corruptions are capped per run, so the whole test stays well under two minutes. */
const CAPS = { huge: 2, deep: 4, 'deep-field': 3 };
const CHOICES = Object.keys(KINDS).filter((k) => !(k === 'deep-field' && KNOWN_BUG_DEEP_FIELD));

/** Writes one run's corrupted files and its config; returns the manifest of what each file is. */
async function writeBatch(dir, run, seeds) {
  const r = prng(SEED + run * 7919);
  const used = {};
  const manifest = [];
  for (let i = 0; i < FILES_PER_RUN; i++) {
    let kind = r.pick(CHOICES);
    if ((used[kind] ?? 0) >= (CAPS[kind] ?? Infinity)) kind = 'flip';
    used[kind] = (used[kind] ?? 0) + 1;
    const seed = r.pick(seeds);
    const out = KINDS[kind](r, seed);
    const { bytes, gzip } = Buffer.isBuffer(out) ? { bytes: out, gzip: false } : out;
    const name = `${seed.entity}/${String(i).padStart(3, '0')}-${kind}.${seed.ext}${gzip ? '.gz' : ''}`;
    await writeFile(path.join(dir, name), bytes);
    manifest.push({ name, kind, entity: seed.entity, bytes: bytes.length });
  }
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ seed: SEED, run, manifest }, null, 1));
  return manifest;
}

function lineCount(bytes) {
  let n = 1;
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) n++;
  return n;
}

async function validate(dir) {
  const child = spawnCli(['validate', '--json'], { cwd: dir, env: NO_TARGET });
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  try {
    return await collect(child);
  } finally {
    clearTimeout(timer);
  }
}

/** Everything that must hold of one run; returns the list of what did not. */
async function checkRun(dir, manifest, result) {
  const bad = [];
  if (result.signal) bad.push(`killed by ${result.signal} (hung for ${RUN_TIMEOUT_MS} ms?)`);
  if (STACK.test(result.stderr)) bad.push(`stack trace on stderr: ${result.stderr.slice(0, 1500)}`);
  if (/unexpected failure/.test(result.stderr)) bad.push(`crash: ${result.stderr.trim()}`);
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    bad.push(
      `exit ${result.code}; stdout is not JSON: ${result.stdout.slice(0, 300)} / ${result.stderr.slice(0, 500)}`,
    );
    return bad;
  }
  // No corruption here makes a file unreadable (each exists, with a known extension): exit 1 is a failure.
  const expectedCode = report.errorCount > 0 ? 3 : 0;
  if (result.code !== expectedCode)
    bad.push(`exit ${result.code} with ${report.errorCount} errors (expected ${expectedCode})`);
  if (!Array.isArray(report.problems)) return [...bad, 'no problems array'];
  const names = new Set(manifest.map((m) => m.name));
  const lines = new Map();
  for (const m of manifest) {
    if (m.name.endsWith('.gz')) continue;
    lines.set(m.name, lineCount(await readFile(path.join(dir, m.name))));
  }
  for (const m of manifest) {
    if (!m.name.endsWith('.gz')) continue;
    try {
      lines.set(m.name, lineCount(gunzipSync(await readFile(path.join(dir, m.name)))));
    } catch {
      // a broken stream: how far a streaming gunzip gets is not known here, so no upper bound
    }
  }
  for (const p of report.problems) {
    const where = `${p.file}:${p.line} [${p.rule}]`;
    if (typeof p.file !== 'string' || !names.has(p.file)) bad.push(`problem in a file not of this run: ${where}`);
    if (!Number.isInteger(p.line) || p.line < 0) bad.push(`line not an integer >= 0: ${where}`);
    else if (lines.has(p.file) && p.line > lines.get(p.file))
      bad.push(`line past the end of the file (${lines.get(p.file)} lines): ${where}`);
    if (!KNOWN_CODES.has(p.rule)) bad.push(`unknown rule code: ${where}`);
    if (p.severity !== 'error' && p.severity !== 'warning') bad.push(`bad severity ${p.severity}: ${where}`);
    if (typeof p.message !== 'string' || p.message === '') bad.push(`no message: ${where}`);
  }
  const errors = report.problems.filter((p) => p.severity === 'error').length;
  if (errors !== report.errorCount) bad.push(`errorCount ${report.errorCount} but ${errors} errors listed`);
  const perEntity = Object.values(report.byEntity ?? {}).reduce((n, c) => n + c.records, 0);
  if (perEntity !== report.recordsRead) bad.push(`recordsRead ${report.recordsRead} but entities sum to ${perEntity}`);
  return bad;
}

/** Validates `files` of a failed run on their own; the list of what failed (empty when all held). */
async function validateSubset(dir, files) {
  const sub = await tempDir('cm-fuzz-part-');
  try {
    const entities = new Set(files.map((m) => m.entity));
    for (const entity of entities) await mkdir(path.join(sub, entity));
    for (const m of files) await writeFile(path.join(sub, m.name), await readFile(path.join(dir, m.name)));
    const sources = Object.fromEntries(
      [...entities].map((e) => [e, { path: files.filter((m) => m.entity === e).map((m) => m.name) }]),
    );
    await writeConfig(sub, { sources });
    return await checkRun(sub, files, await validate(sub));
  } finally {
    await rm(sub, { recursive: true, force: true });
  }
}

/** After a failed run: bisects its files to name the inputs that fail on their own (at most 40 runs). */
async function isolate(dir, manifest) {
  const culprits = [];
  let budget = 40;
  const search = async (files) => {
    if (budget <= 0 || culprits.length >= 3) return;
    budget--;
    const bad = await validateSubset(dir, files);
    if (bad.length === 0) return;
    if (files.length === 1) {
      culprits.push(`${files[0].name} (${files[0].kind}, ${files[0].bytes} bytes): ${bad[0].slice(0, 200)}`);
      return;
    }
    const half = files.length >> 1;
    await search(files.slice(0, half));
    await search(files.slice(half));
  };
  await search(manifest);
  return culprits;
}

const FUZZ_TITLE =
  `fuzz: ${RUNS * FILES_PER_RUN} corrupted files, ${FILES_PER_RUN} a run: ` +
  `always a JSON report, located problems, exit 0 or 3, no stack trace (seed ${SEED})`;

test(FUZZ_TITLE, async (t) => {
  const seeds = await loadSeeds();
  const started = Date.now();
  const failures = [];
  const kinds = {};
  let problems = 0;
  for (let run = 0; run < RUNS; run++) {
    const dir = await tempDir('cm-fuzz-');
    for (const entity of ['users', 'groups', 'members', 'messages']) await mkdir(path.join(dir, entity));
    const manifest = await writeBatch(dir, run, seeds);
    for (const m of manifest) kinds[m.kind] = (kinds[m.kind] ?? 0) + 1;
    await writeConfig(dir, {
      sources: {
        users: { path: 'users/*' },
        groups: { path: 'groups/*' },
        members: { path: 'members/*' },
        messages: { path: 'messages/*' },
      },
    });
    const result = await validate(dir);
    const bad = await checkRun(dir, manifest, result);
    if (bad.length === 0) {
      problems += JSON.parse(result.stdout).problems.length;
      if (!process.env.FUZZ_KEEP) await rm(dir, { recursive: true, force: true });
      continue;
    }
    const culprits = failures.length < 2 ? await isolate(dir, manifest) : [];
    const named =
      failures.length >= 2
        ? '(not bisected: only the first two failed runs are)'
        : culprits.join('\n    ') || '(none fails alone: an interaction of files)';
    const where = `run ${run} (FUZZ_SEED=${SEED}, files kept in ${dir}, see manifest.json)`;
    failures.push(`${where}:\n    ${bad.slice(0, 10).join('\n    ')}\n  inputs that fail alone:\n    ${named}`);
  }
  t.diagnostic(
    `seed ${SEED}: ${RUNS} runs, ${problems} problems reported, ${Date.now() - started} ms; ` +
      `kinds ${JSON.stringify(kinds)}`,
  );
  assert.equal(failures.length, 0, `\n${failures.join('\n')}`);
  // the corruptions must actually have been varied: every kind but the capped-out known bug was used
  for (const kind of CHOICES) assert.ok(kinds[kind] > 0, `corruption ${kind} never drawn`);
});

const DEEP_NESTING =
  'deep nesting inside metadata, data or senderUserDetails is a located problem (value.too-deep), not a crash';

test(DEEP_NESTING, async () => {
  const deep = nested(DEPTH);
  const cases = [
    ['users', 'users.ndjson', `{"uid":"u1","name":"Ann","metadata":{"x":${deep}}}\n`],
    ['users', 'users.csv', `uid,name,metadata\nu1,Ann,"{""x"":${deep}}"\n`],
    [
      'messages',
      'messages.ndjson',
      '{"muid":"m1","sender":"u1","receiverType":"user","receiver":"u2","sentAt":1600000000,' +
        `"type":"text","data":{"text":"t","x":${deep}}}\n`,
    ],
    [
      'messages',
      'messages.json',
      '[{"muid":"m1","sender":"u1","receiverType":"user","receiver":"u2","sentAt":1600000000,' +
        `"type":"text","data":{"text":"t"},"senderUserDetails":{"uid":"u1","x":${deep}}}]\n`,
    ],
  ];
  const results = await Promise.all(
    cases.map(async ([entity, name, text]) => {
      const dir = await tempDir('cm-fuzz-deep-');
      await writeFile(path.join(dir, name), text);
      await writeConfig(dir, { sources: { [entity]: { path: name } } });
      const result = await validate(dir);
      await rm(dir, { recursive: true, force: true });
      return [name, result];
    }),
  );
  for (const [name, result] of results) {
    assert.equal(result.code, 3, `${name}: exit ${result.code}\n${result.stderr.slice(0, 500)}`);
    assert.doesNotMatch(result.stderr, STACK, name);
    const report = JSON.parse(result.stdout);
    const line = name.endsWith('.csv') ? 2 : 1; // a CSV record starts under its header
    assert.ok(
      report.problems.some((p) => p.rule === 'value.too-deep' && p.line === line),
      `${name}: ${result.stdout.slice(0, 300)}`,
    );
  }
});
