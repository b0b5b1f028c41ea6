// Helpers for the preset tests: a tiny zip writer (so a fresh clone can zip fixture folders without a
// zip tool) and a reader that runs a preset's plans through the same map -> validate path as a run.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { createMapper } from '../dist/pipeline/map/map.js';
import { ExportIndex, validateRecord } from '../dist/rules/index.js';
import { planPreset } from '../dist/systems/preset.js';
import { FIXTURES, tempDir } from './helpers.mjs';

export const PRESET_FIXTURES = path.join(FIXTURES, 'presets');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

async function walk(dir, rel = '') {
  const out = [];
  for (const entry of (await readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await walk(dir, child)));
    else out.push(child);
  }
  return out;
}

/** Zips a folder (deflate, UTF-8 names); `prefix` nests every entry under one folder, as many zips do. */
export async function zipFolder(dir, zipPath, { prefix = '' } = {}) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const rel of await walk(dir)) {
    const data = await readFile(path.join(dir, rel));
    const packed = deflateRawSync(data);
    const name = Buffer.from(prefix + rel, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await writeFile(zipPath, Buffer.concat([...locals, directory, end]));
  return zipPath;
}

/** planPreset with a fresh id map file in a temp folder; returns the plans and where the map went. */
export async function plan(preset, from, options = {}) {
  const dir = await tempDir('cm-preset-');
  const idMapFile = path.join(dir, 'ids.ndjson');
  const plans = await planPreset(preset, from, { cwd: dir, idMapFile, ...options });
  return { plans, idMapFile, dir };
}

/**
 * Reads every input of the plans as a run does (map, then validate with the cross-record index) and
 * tallies per entity: records, payloads sent, skip reasons, problems. Also checks each input's
 * ordinals run 0, 1, 2... and that a second read yields the same items (resume relies on both).
 */
export async function readPlans(plans) {
  const nowSec = Math.floor(Date.now() / 1000);
  const index = new ExportIndex({ configured: new Set(plans.map((p) => p.entity.name)), nowSec });
  const out = { inputs: [] };
  for (const p of plans) {
    const tally = { read: 0, sent: [], skipped: {}, skippedCount: 0, problems: [], errors: [], items: [] };
    out[p.entity.name] = tally;
    for (const input of p.inputs) {
      out.inputs.push(input.display);
      const mapper = createMapper({ entity: p.entity });
      const first = [];
      for await (const item of input.read({ entity: p.entity.name })) first.push(item);
      const second = [];
      for await (const item of input.read({ entity: p.entity.name })) second.push(item);
      if (JSON.stringify(first) !== JSON.stringify(second)) throw new Error(`${input.display}: a second read differs`);
      const ordinals = first.filter((i) => i.ordinal !== undefined).map((i) => i.ordinal);
      ordinals.forEach((o, i) => {
        if (o !== i) throw new Error(`${input.display}: ordinal ${o} at position ${i}`);
      });
      for (const item of first) {
        tally.items.push({ input: input.display, ...item });
        if (item.kind === 'problem') {
          tally.problems.push(item);
          continue;
        }
        tally.read++;
        const record = mapper(item);
        if (record.skip) {
          tally.skipped[record.skip] = (tally.skipped[record.skip] ?? 0) + 1;
          tally.skippedCount++;
          continue;
        }
        const problems = [...record.problems, ...validateRecord(record, nowSec), ...index.check(record)];
        for (const problem of problems)
          if (problem.severity === 'error')
            tally.errors.push({ input: input.display, line: item.line, id: record.id, ...problem });
        tally.sent.push(record.payload);
      }
    }
  }
  if (new Set(out.inputs).size !== out.inputs.length) throw new Error(`input names repeat: ${out.inputs.join(', ')}`);
  return out;
}

export async function readIdMap(file) {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

export const byId = (records, field) => Object.fromEntries(records.map((r) => [r[field], r]));
