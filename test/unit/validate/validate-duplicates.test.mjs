// Duplicate muids with a fixed-size Bloom filter (ExportIndex's bloom mode) and validate's second
// reading that confirms the suspects. A false positive cannot be forced with the real 16 MB filter,
// so the tests shrink it to one 128-byte block (`bloomBytes`), where almost every id is a suspect.
// Build first: npx tsc -p tsconfig.json
/** @typedef {import('../../../dist/entities/types.js').Problem} Problem */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { hashId } from '../../../dist/rules/id-hash.js';
import { duplicateIdProblem, ExportIndex, IdBloomFilter, suspectDuplicateProblem } from '../../../dist/rules/index.js';
import { exportDir, ndjson, NOW, planExport, TINY_BLOOM_BYTES, validate } from '../../validate-helpers.mjs';

// Only messages configured: references go unchecked, so each check is about ids alone.
/** @type {Set<import('../../../dist/entities/types.js').EntityName>} */
const MESSAGES = new Set(['messages']);

/** @returns {import('../../../dist/entities/types.js').MappedRecord} */
function message(muid, line, extra = {}, text = 'hi') {
  const payload = {
    muid,
    sender: 'u1',
    receiverType: 'group',
    receiver: 'g1',
    category: 'message',
    type: 'text',
    sentAt: 1_600_000_000,
    data: { text },
  };
  return {
    entity: 'messages',
    payload,
    id: muid,
    source: {},
    file: 'messages.ndjson',
    line,
    ordinal: line - 1,
    problems: [],
    ...extra,
  };
}

const addId = (filter, id) => {
  hashId(id);
  return filter.add();
};

test('IdBloomFilter: never forgets an id, ignores case, allocates on first use, refuses odd sizes', () => {
  const filter = new IdBloomFilter();
  assert.equal(filter.byteLength, 0);
  let hits = 0;
  for (let i = 0; i < 100_000; i++) hits += addId(filter, `m${i}`) ? 1 : 0;
  // 100,000 ids in 16 MB: a false positive has odds of about 1e-12.
  assert.equal(hits, 0);
  assert.equal(filter.byteLength, IdBloomFilter.DEFAULT_BYTES);
  for (let i = 0; i < 100_000; i += 7) assert.equal(addId(filter, `m${i}`), true);
  assert.equal(addId(filter, 'M77'), true, 'ids differing only in case are the same id to the service');
  for (const bad of [0, 100, 129, 1000, 1.5]) assert.throws(() => new IdBloomFilter(bad), RangeError);
  const tiny = new IdBloomFilter(TINY_BLOOM_BYTES);
  for (let i = 0; i < 200; i++) hits += addId(tiny, `x${i}`) ? 1 : 0;
  assert.ok(hits > 0, 'a 1,024-bit filter fills up and reports ids it never saw');
});

test('ExportIndex bloom mode: check marks later muids as suspects instead of reporting them', () => {
  const index = new ExportIndex({ configured: MESSAGES, nowSec: NOW, messageIds: 'bloom' });
  const first = message('m1', 1);
  const again = message('m1', 2, {}, 'again');
  const upper = message('M1', 3);
  const other = message('m2', 4);
  for (const r of [first, again, upper, other]) assert.deepEqual(index.check(r), []);
  assert.equal(first.duplicateSuspect, undefined);
  assert.equal(again.duplicateSuspect, true);
  assert.equal(upper.duplicateSuspect, true);
  assert.equal(other.duplicateSuspect, undefined);
  assert.equal(index.suspectCount, 1, 'one suspect id (m1), however often it repeats');
  // Skipped records are never sent: they are neither ids nor suspects.
  const skipped = message('m2', 5, { skip: 'soft-deleted' });
  assert.deepEqual(index.check(skipped), []);
  assert.equal(skipped.duplicateSuspect, undefined);

  // The second reading, in the same order, says what each suspect is, naming the first place.
  assert.equal(index.recheckMessageId(message('m1', 1)), undefined);
  /** @type {(r: import('../../../dist/entities/types.js').MappedRecord) => Problem} */
  const recheck = (r) => /** @type {any} */ (index.recheckMessageId(r));
  const dup = recheck(message('m1', 2, {}, 'again'));
  assert.deepEqual([dup.rule, dup.field, dup.severity], ['id.duplicate', 'muid', 'error']);
  assert.equal(dup.message, 'duplicate muid m1; first seen at messages.ndjson:1');
  const clash = recheck(message('M1', 3, { file: 'archive.csv' }));
  assert.equal(clash.rule, 'id.case-collision');
  assert.equal(
    clash.message,
    'muid M1 differs only in case from the muid first seen at messages.ndjson:1; the service lower-cases both to m1',
  );
  assert.equal(index.recheckMessageId(message('m2', 4)), undefined, 'not a suspect: not even looked up');
  assert.equal(index.recheckMessageId(message('m1', 5, { skip: 'before-since' })), undefined);

  // Users, groups and members stay exact: references need them, and they are few.
  /** @type {(uid: string, line: number, name?: string) => import('../../../dist/entities/types.js').MappedRecord} */
  const user = (uid, line, name = uid) => ({
    entity: 'users',
    payload: { uid, name },
    id: uid,
    source: {},
    file: 'users.csv',
    line,
    ordinal: 0,
    problems: [],
  });
  assert.deepEqual(index.check(user('u1', 2)), []);
  assert.equal(index.check(user('u1', 3, 'Ann'))[0].message, 'duplicate uid u1; first seen at users.csv:2');
});

test('ExportIndex bloom mode: false positives of a full filter vanish in the second reading', () => {
  const index = new ExportIndex({
    configured: MESSAGES,
    nowSec: NOW,
    messageIds: 'bloom',
    bloomBytes: TINY_BLOOM_BYTES,
  });
  const ids = Array.from({ length: 300 }, (_, i) => `m${i}`);
  ids.forEach((id, i) => {
    index.check(message(id, i + 1));
  });
  assert.ok(index.suspectCount > 10, `suspects: ${index.suspectCount}`);
  assert.deepEqual(ids.map((id, i) => index.recheckMessageId(message(id, i + 1))).filter(Boolean), []);
});

test('ExportIndex exact mode (the default) still reports a duplicate muid at once', () => {
  const index = new ExportIndex({ configured: MESSAGES, nowSec: NOW });
  assert.deepEqual(index.check(message('m1', 1)), []);
  const [dup] = index.check(message('m1', 2, {}, 'again'));
  assert.equal(dup.message, 'duplicate muid m1; first seen at messages.ndjson:1');
  assert.equal(index.suspectCount, 0);
});

test('suspectDuplicateProblem: what import reports when the service already holds a suspect', () => {
  const p = suspectDuplicateProblem(message('M1', 9));
  assert.deepEqual([p.rule, p.field, p.severity], ['id.duplicate', 'muid', 'error']);
  assert.match(p.message, /^duplicate muid M1: an earlier record of the export has it/);
  // With the first record at hand (import finds it in a batch of its own), the message exact mode gives.
  const index = new ExportIndex({ configured: MESSAGES, nowSec: NOW });
  index.check(message('m1', 1));
  const [exact] = index.check(message('M1', 2));
  assert.deepEqual(duplicateIdProblem('messages', 'M1', false, 'messages.ndjson:1'), exact);
  assert.equal(
    duplicateIdProblem('messages', 'm1', true, 'a.ndjson:3').message,
    'duplicate muid m1; first seen at a.ndjson:3',
  );
});

// ---- validate end to end (in process): the second reading over real files

const people = { users: [{ uid: 'u1', name: 'Ann' }], groups: [{ guid: 'g1', name: 'G', type: 'public' }] };
const msg = (muid, extra = {}) => ({
  muid,
  sender: 'u1',
  receiverType: 'group',
  receiver: 'g1',
  sentAt: 1_600_000_000,
  type: 'text',
  data: { text: 'hi' },
  ...extra,
});

/**
 * messages-a.ndjson lines: 1 m1, 2 m2, 3 m3 (unknown sender), 4 m1 again (other text), 5 M2, 6 m6 (deleted),
 * 7 m6 (the deleted one does not count), 8 m1 a third time (another unknown sender), 9 "bad json". A missing
 * sender is one line, at the first message naming it.
 * messages-b.csv rows: line 2 m3 (a duplicate across files), line 3 M3.
 */
async function duplicatesExport() {
  const dir = await exportDir('cm-dups-', people);
  const a = [
    msg('m1'),
    msg('m2'),
    msg('m3', { sender: 'ghost' }),
    msg('m1', { data: { text: 'again' } }),
    msg('M2'),
    msg('m6', { deletedAt: 1_600_000_001 }),
    msg('m6'),
    msg('m1', { sender: 'phantom' }),
  ];
  await writeFile(path.join(dir, 'messages-a.ndjson'), `${ndjson(a)}{"muid": \n`);
  await writeFile(
    path.join(dir, 'messages-b.csv'),
    'muid,sender,receiverType,receiver,sentAt,type,data.text\n' +
      'm3,u1,group,g1,1600000000,text,hi\nM3,u1,group,g1,1600000000,text,hi\n',
  );
  return { dir, plans: await planExport(dir, ['messages-a.ndjson', 'messages-b.csv']) };
}

const firstSeen = (p) => p.message.replace(/^.*first seen at (\S+?);?( .*)?$/, '$1');
const brief = (p) =>
  `${p.file}:${p.line} ${p.id ?? '-'} ${p.rule}${p.rule.startsWith('id.') ? ` (${firstSeen(p)})` : ''}`;

const EXPECTED = [
  'messages-a.ndjson:3 m3 ref.message.sender',
  'messages-a.ndjson:4 m1 id.duplicate (messages-a.ndjson:1)',
  'messages-a.ndjson:5 M2 id.case-collision (messages-a.ndjson:2)',
  // Within one record: its own problems, then the duplicate, then its references (as a one-pass check orders them).
  'messages-a.ndjson:8 m1 id.duplicate (messages-a.ndjson:1)',
  'messages-a.ndjson:8 m1 ref.message.sender',
  'messages-a.ndjson:9 - input.json-syntax',
  'messages-b.csv:2 m3 id.duplicate (messages-a.ndjson:3)',
  'messages-b.csv:3 M3 id.case-collision (messages-a.ndjson:3)',
];

test(
  'validate: the second reading reports each duplicate muid ' +
    'at its line, naming the first; the same with a full filter',
  async () => {
    const { plans } = await duplicatesExport();
    const result = await validate(plans);
    assert.deepEqual(result.errors.map(brief), EXPECTED);
    assert.deepEqual(result.warnings, []);
    assert.equal(result.errorCount, EXPECTED.length);
    assert.deepEqual(result.byRule, {
      'ref.message.sender': 2,
      'id.duplicate': 3,
      'id.case-collision': 2,
      'input.json-syntax': 1,
    });
    assert.deepEqual(result.byEntity.messages, { records: 11, errors: 8, warnings: 0, skipped: 1 });
    assert.equal(result.recordsRead, 13);
    assert.equal(result.stoppedEarly, false);
    // Every id a suspect: the false positives among them leave no trace.
    const full = await validate(plans, { bloomBytes: TINY_BLOOM_BYTES });
    assert.deepEqual(full, result);
  },
);

test('validate: a clean export with a full filter (many false positives) reports nothing', async () => {
  const dir = await exportDir('cm-dups-', people);
  await writeFile(path.join(dir, 'messages.ndjson'), ndjson(Array.from({ length: 500 }, (_, i) => msg(`m${i}`))));
  const plans = await planExport(dir, 'messages.ndjson');
  const result = await validate(plans, { bloomBytes: TINY_BLOOM_BYTES });
  assert.equal(result.errorCount, 0);
  assert.equal(result.recordsRead, 502);
});

test(
  'validate --max-errors: duplicates found by the second ' +
    'reading move the stop to where a one-pass check would stop',
  async () => {
    const { plans } = await duplicatesExport();
    const all = (await validate(plans)).errors;
    for (const bloomBytes of [undefined, TINY_BLOOM_BYTES]) {
      for (let max = 1; max <= EXPECTED.length; max++) {
        const early = await validate(plans, { maxErrors: max, bloomBytes });
        // Every problem of the record holding the max-th error, and nothing after it.
        const last = all[max - 1];
        const through = all.filter((p) => all.indexOf(p) < max || (p.file === last.file && p.line === last.line));
        assert.deepEqual(early.errors.map(brief), through.map(brief), `--max-errors ${max}`);
        assert.equal(early.errorCount, through.length, `--max-errors ${max}: errorCount`);
        assert.equal(early.stoppedEarly, true, `--max-errors ${max}`);
        const counts = {};
        for (const p of through) counts[p.rule] = (counts[p.rule] ?? 0) + 1;
        assert.deepEqual(early.byRule, counts, `--max-errors ${max}: byRule`);
        // In the order rules first occur, as one pass fills it: the text report breaks ties by it.
        assert.deepEqual(Object.keys(early.byRule), Object.keys(counts), `--max-errors ${max}: byRule order`);
        // Records read: users, groups, and the messages up to the stop.
        const lineOfStop = last.file === 'messages-b.csv' ? 9 + last.line - 1 : last.line;
        const skipped = lineOfStop >= 6 ? 1 : 0;
        assert.deepEqual(
          early.byEntity.messages,
          { records: lineOfStop, errors: through.length, warnings: 0, skipped },
          `--max-errors ${max}: messages`,
        );
        assert.equal(early.recordsRead, 2 + lineOfStop, `--max-errors ${max}: records read`);
      }
    }
  },
);
