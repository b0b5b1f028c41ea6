// Reads a V8 .cpuprofile (from `node --cpu-prof`) and lists where the time went: self time per
// function and per file, so a hot path's per-record cost is visible without a GUI.
//   node bench/cpu-profile.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function shortUrl(url) {
  if (!url) return '(native)';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  return file.startsWith(ROOT) ? path.relative(ROOT, file) : file;
}

/** Self time (ms) by function and by file, biggest first. */
export function summariseProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const files = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const where = shortUrl(callFrame.url);
    const key = `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    const fileKey = callFrame.url ? where : callFrame.functionName || '(native)';
    files.set(fileKey, (files.get(fileKey) ?? 0) + us);
  }
  const rank = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), pct: Math.round((us / total) * 1000) / 10 }));
  return { totalMs: Math.round(total / 1000), functions: rank(fns), files: rank(files) };
}

export function formatProfile(summary) {
  const lines = [`total sampled: ${summary.totalMs} ms`, 'self time by function:'];
  for (const f of summary.functions)
    lines.push(`  ${String(f.pct).padStart(5)}%  ${String(f.ms).padStart(6)} ms  ${f.name}`);
  lines.push('self time by file:');
  for (const f of summary.files)
    lines.push(`  ${String(f.pct).padStart(5)}%  ${String(f.ms).padStart(6)} ms  ${f.name}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [file, top] = process.argv.slice(2);
  process.stdout.write(`${formatProfile(summariseProfile(file, Number(top ?? 25)))}\n`);
}
