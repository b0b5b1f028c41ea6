/**
 * What `init` prints: the preset it recognised and what it counted, or for plain files the entity
 * of each, where every API field comes from, what was assumed, what could not be placed, and three
 * records as import would send them. Then the config, and what is left to do.
 */
import type { InitProposal } from '../pipeline/init/inspect-export.js';
import type { PlainFile } from '../pipeline/init/inspect-plain.js';
import { describe } from '../pipeline/init/inspect-export.js';
import { SYSTEMS } from '../systems/registry.js';
import { plural } from './words.js';

export function formatInitReport(proposal: InitProposal): string {
  if (proposal.kind === 'nothing')
    return `Nothing to import found: ${proposal.why} (${plural(proposal.files.length, 'file')} looked at).\n`;
  if (proposal.kind === 'preset') {
    const d = proposal.detection;
    const c = d.counts;
    const kinds = Object.entries(d.filesByKind)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    const about = c.estimated ? 'about ' : '';
    const lines = [
      `Found ${SYSTEMS[d.preset].export} (preset "${d.preset}"), recognised by content, e.g. ${d.example}`,
      `  ${plural(d.files, 'file')} of the export, by what they hold: ${kinds}`,
      `  ${about}${[
        c.users > 0 ? plural(c.users, 'user') : undefined,
        plural(c.channels, 'channel'),
        c.members > 0 ? plural(c.members, 'membership') : undefined,
        plural(c.messages, 'message'),
      ]
        .filter(Boolean)
        .join(', ')}${c.estimated ? ' (files past the first 64 MB estimated by size)' : ''}`,
    ];
    if (d.unrecognized.length > 0) {
      const shown = d.unrecognized.slice(0, 3).join(', ');
      const more = d.unrecognized.length > 3 ? ', ...' : '';
      lines.push(`  ${plural(d.unrecognized.length, 'other file')} not part of it, not read: ${shown}${more}`);
    }
    for (const o of d.others)
      lines.push(
        `  note: ${plural(o.files, 'file')} look like a ${o.preset} export; the ${d.preset} preset skips them`,
      );
    return `${lines.join('\n')}\n`;
  }
  const plain = proposal.files.map(formatPlainFile).join('\n');
  const below = proposal.notRead;
  if (below === undefined) return plain;
  const shown = below.files.slice(0, 3).join(', ') + (below.files.length > 3 ? ', ...' : '');
  const what = `${plural(below.files.length, 'file')} in folders below, not read (a ${below.nested} export among them)`;
  return `${plain}\n${what}: ${shown}\n  init that folder on its own to migrate it\n`;
}

function formatPlainFile(f: PlainFile): string {
  const out = [`${f.file.display}: ${f.entity.entity ?? 'not recognised'} (${plural(f.records, 'record')} looked at)`];
  for (const p of f.readProblems) out.push(`  read problem: ${p}`);
  if (f.entity.why !== undefined) out.push(`  why: ${f.entity.why.join('; ')}`);
  if (f.entity.ambiguity !== undefined) out.push(`  ambiguous: ${describe(f.entity.ambiguity, f.file.display)}`);
  const g = f.guess;
  if (g === undefined) {
    if (f.entity.ambiguity === undefined)
      out.push(
        `  columns: ${f.columns.map((c) => c.name).join(', ')}: no entity's fields (use --entity <file>=<entity>)`,
      );
    return `${out.join('\n')}\n`;
  }
  const placed = Object.entries(g.placed).map(([field, column]) =>
    field === column ? field : `${field} <- ${column}`,
  );
  out.push(`  fields: ${placed.join(', ')}`);
  for (const a of g.assumed) out.push(`  assumed: ${a.field} = "${a.value}" (${a.why})`);
  if (g.kept.length > 0) out.push(`  no API field, kept in metadata: ${g.kept.join(', ')}`);
  if (g.unplaced.length > 0) out.push(`  could not place (not sent): ${g.unplaced.join(', ')}`);
  for (const a of g.ambiguities) out.push(`  ambiguous: ${describe(a)}`);
  for (const m of g.missing) out.push(`  missing: no column for ${m}`);
  if (f.samples.length > 0) out.push('  as import would send them:');
  for (const s of f.samples) {
    out.push(`    line ${s.line}: ${JSON.stringify(s.payload)}${s.skip ? ` (skipped: ${s.skip})` : ''}`);
    for (const p of s.problems) out.push(`      ${p.severity}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
  }
  return `${out.join('\n')}\n`;
}
