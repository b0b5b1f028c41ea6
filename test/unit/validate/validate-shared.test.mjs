// validate reads large NDJSON message files with a worker taking every other block
// (src/pipeline/validate/checked-messages.ts). Whatever the file holds, the result must be the one a single
// thread gives: the same problems, in the same order, with the same counts.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { readMessagesWithWorker } from '../../../dist/pipeline/validate/checked-messages.js';
import { exportDir, NOW, planExport, TINY_BLOOM_BYTES, validate } from '../../validate-helpers.mjs';

/** ~4,000 message lines (about 20 blocks of 64 KB) with a problem of every kind spread over the blocks. */
function messageLines() {
  const lines = [];
  for (let i = 0; i < 4000; i++) {
    /** @type {Record<string, any>} */
    const m = {
      muid: `m${i}`,
      sender: `u${i % 50}`,
      receiverType: 'group',
      receiver: `g${i % 10}`,
      sentAt: 1_600_000_000 + i,
      type: 'text',
      data: { text: `message ${i} ${'x'.repeat(200)}` },
    };
    if (i % 397 === 5) {
      lines.push('{"muid": "broken');
      continue;
    }
    if (i % 501 === 7) {
      lines.push('[1, 2]');
      continue;
    }
    if (i % 333 === 9) lines.push('   ');
    if (i % 611 === 11) m.legacy_x = 1;
    if (i % 457 === 13) m.legacy_y = 'y';
    if (i % 701 === 17) m.sender = 'ghost';
    if (i % 709 === 19) Object.assign(m, { sender: 'ghost2', senderUserDetails: { uid: 'ghost2', name: 'G' } });
    if (i % 307 === 23) Object.assign(m, { receiverType: 'user', receiver: 'nobody' });
    if (i % 800 === 29) m.muid = `m${i - 700}`;
    if (i % 803 === 31) m.muid = `M${i - 600}`;
    if (i % 250 === 37) m.deletedAt = 1_600_000_100;
    if (i % 277 === 41) m.data.text = '';
    if (i % 389 === 43) m.sentAt = 'yesterday';
    lines.push(JSON.stringify(m));
  }
  return lines;
}

const people = {
  users: Array.from({ length: 50 }, (_, i) => ({ uid: `u${i}`, name: `User ${i}` })),
  groups: Array.from({ length: 10 }, (_, i) => ({ guid: `g${i}`, name: `Group ${i}`, type: 'public' })),
};

async function sharedExport(messages) {
  const dir = await exportDir('cm-shared-', people);
  await writeFile(path.join(dir, messages.name), messages.bytes);
  return planExport(dir, messages.name);
}

/** A line of bytes that are not UTF-8 among the others. */
function withBadBytes(lines) {
  const parts = lines.map((l) => Buffer.from(`${l}\n`));
  parts.splice(1234, 0, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
  return Buffer.concat(parts);
}

async function assertSameBothWays(plans, extra = {}) {
  const alone = await validate(plans, { ...extra, messageWorkerMinBytes: Infinity });
  const shared = await validate(plans, { ...extra, messageWorkerMinBytes: 0 });
  assert.deepEqual(shared, alone);
  return alone;
}

test('shared reading gives exactly the single-thread result: problems, order, counts, warnings once', async () => {
  const plans = await sharedExport({ name: 'messages.ndjson', bytes: withBadBytes(messageLines()) });
  const result = await assertSameBothWays(plans);
  // The file holds every kind of problem, so the comparison covers them all.
  for (const rule of [
    'input.json-syntax',
    'input.not-object',
    'input.utf8',
    'ref.message.sender',
    'ref.message.receiver',
    'id.duplicate',
    'id.case-collision',
    'message.text.empty',
    'timestamp.invalid',
  ]) {
    assert.ok(result.byRule[rule] > 0, `${rule} in the file: ${JSON.stringify(result.byRule)}`);
  }
  // An unknown field is reported once, at its first line, though both threads met it.
  assert.equal(result.byRule['field.unknown'], 2);
  assert.ok(result.byEntity.messages.skipped > 0);
});

test(
  'shared reading with --max-errors and with the second ' + '(duplicates) reading: the same stops and results',
  async () => {
    const plans = await sharedExport({ name: 'messages.ndjson', bytes: withBadBytes(messageLines()) });
    for (const maxErrors of [1, 7, 40, 90]) await assertSameBothWays(plans, { maxErrors });
    await assertSameBothWays(plans, { bloomBytes: TINY_BLOOM_BYTES });
    await assertSameBothWays(plans, { bloomBytes: TINY_BLOOM_BYTES, maxErrors: 25 });
  },
);

test('shared reading of a .gz file, a file without a last newline, and an empty file', async () => {
  const lines = messageLines();
  await assertSameBothWays(
    await sharedExport({ name: 'messages.ndjson.gz', bytes: gzipSync(`${lines.join('\n')}\n`) }),
  );
  await assertSameBothWays(await sharedExport({ name: 'messages.ndjson', bytes: Buffer.from(lines.join('\n')) }));
  const empty = await assertSameBothWays(await sharedExport({ name: 'messages.ndjson', bytes: Buffer.alloc(0) }));
  assert.equal(empty.byRule['input.empty-file'], 1);
});

test('both threads take part: every other block comes back checked by the worker, lines in file order', async () => {
  const plans = await sharedExport({ name: 'messages.ndjson', bytes: Buffer.from(`${messageLines().join('\n')}\n`) });
  const file = plans.find((p) => p.entity.name === 'messages').inputs[0].file;
  const task = { file, source: {}, importSoftDeleted: false, nowSec: NOW };
  const kinds = [];
  let lastLine = 0;
  for await (const block of readMessagesWithWorker(task)) {
    kinds.push(block.some((item) => item.kind === 'checked') ? 'worker' : 'here');
    for (const item of block) {
      if (item.kind === 'skipped') continue;
      assert.ok(item.line > lastLine, `line ${item.line} after ${lastLine}`);
      lastLine = item.line;
    }
  }
  assert.ok(kinds.length >= 10, `${kinds.length} blocks`);
  assert.deepEqual(
    kinds,
    kinds.map((_, i) => (i % 2 === 0 ? 'here' : 'worker')),
  );
});

test('attachments on expiring hosts and old messages are counted alike by both threads, in one reading', async () => {
  const hosts = ['files.slack.com', 'cdn.discordapp.com', 'example.org'];
  const lines = Array.from({ length: 4000 }, (_, i) =>
    JSON.stringify({
      muid: `m${i}`,
      sender: `u${i % 50}`,
      receiverType: 'group',
      receiver: `g${i % 10}`,
      sentAt: i % 4 === 0 ? NOW - 400 * 86_400 : NOW - 86_400,
      type: 'file',
      data: {
        text: 'x'.repeat(200),
        attachments: [{ url: `https://${hosts[i % 3]}/f/${i}.png`, name: `${i}.png`, mimeType: 'image/png' }],
      },
    }),
  );
  const plans = await sharedExport({ name: 'messages.ndjson', bytes: Buffer.from(`${lines.join('\n')}\n`) });
  // `media` carries Discord's files: only Slack's are left to expire.
  const media = { hosts: { 'cdn.discordapp.com': {} } };
  const result = await assertSameBothWays(plans, { retentionDays: 183, media });
  // The old messages are skipped (beyond-retention), so their files are not counted: 1334 - 334.
  assert.deepEqual(result.expiringMedia, { total: 1000, byHost: { 'files.slack.com': 1000 } });
  assert.equal(result.beyondRetention, 1000);
  // Named in file order though the worker's blocks report theirs apart: lines 1, 5, 9, ...
  const first = Array.from({ length: 10 }, (_, k) => ({ file: 'messages.ndjson', line: 4 * k + 1 }));
  assert.deepEqual(result.retention.first, first);
});
