import { writeFile } from 'node:fs/promises';
import { ExitCode } from '../errors.js';
import { loadReportData, type ReportData, type ReportSources } from '../report/html/report-data.js';
import { renderHtml } from '../report/html/render-html.js';
import { renderMarkdown } from '../report/report-md.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import type { CommandContext } from './context.js';

interface ReportOptions extends CommonOptions {
  out?: string;
  format: 'html' | 'md';
}

/** Writes the report of a migration to `out`; returns its figures. */
export async function writeReport(sources: ReportSources, out: string, kind: 'html' | 'md'): Promise<ReportData> {
  const data = await loadReportData(sources);
  // 0600 as every file the tool writes: it names records and files of the export.
  await writeFile(out, kind === 'md' ? renderMarkdown(data) : renderHtml(data), { mode: 0o600 });
  return data;
}

export async function reportAction(ctx: CommandContext, opts: ReportOptions): Promise<number> {
  // As status: a bare --checkpoint is enough, with no target configured.
  const { config } = await loadCommandConfig(ctx, opts, false).catch(async (err) => {
    if (opts.checkpoint) return { config: { checkpoint: opts.checkpoint, rejects: undefined } };
    throw err;
  });
  if (opts.out === '-') {
    // Piped on (a CI step, a ticket): the report itself is the output, nothing else.
    const data = await loadReportData({ checkpoint: config.checkpoint, rejects: config.rejects });
    ctx.stdout.write(opts.format === 'md' ? renderMarkdown(data) : renderHtml(data));
    return ExitCode.ok;
  }
  const out = ctx.resolve(opts.out ?? (opts.format === 'md' ? 'migration-report.md' : 'migration-report.html'));
  const data = await writeReport({ checkpoint: config.checkpoint, rejects: config.rejects }, out, opts.format);
  if (opts.json)
    ctx.stdout.write(`${JSON.stringify({ report: out, status: data.state, statusLine: data.statusLine })}\n`);
  else ctx.stdout.write(`${data.statusLine}\nReport written to ${out}\n`);
  return ExitCode.ok;
}
