// docs/systems.md from the systems' registry (src/systems/registry.ts): one row per chat system, so the
// page never lists a system the code lacks or misses one it has.

/** @param {{ SYSTEMS: Record<string, { title: string; export: string; live: boolean }> }} registry */
export function renderSystemsDoc({ SYSTEMS }) {
  const rows = Object.entries(SYSTEMS).map(([name, s]) => {
    const preset = `[\`--preset ${name}\`](presets/${name}.md)`;
    const pull = s.live ? `[\`pull ${name}\`](pull/${name}.md)` : 'none: an export only';
    return `| ${s.title} | ${preset} | ${pull} | ${s.export} |`;
  });
  return [
    '# Chat systems',
    '',
    '<!-- Generated from src/systems/registry.ts by scripts/gen-docs.mjs: edit the registry, not this page. -->',
    '',
    'Each chat system chat-migrate reads has a preset, which imports an export as the system wrote it,',
    'and may have a live source, which `chat-migrate pull` reads over its API into the layout the',
    "preset reads. `chat-migrate init` recognises each system's export by its content.",
    '',
    '| system | preset | live source | what `init` recognises |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
