import { appendFile } from 'node:fs/promises';
import { loadReportData, type ReportSources } from './html/report-data.js';
import { renderMarkdown } from './report-md.js';

/**
 * Appends the report's Markdown (overview and rejects) to the file GITHUB_STEP_SUMMARY names, as a
 * GitHub Actions step is expected to; does nothing without it. `import` calls it after its summary,
 * `verify` the same way. Returns a problem in words when the file cannot be written (never throws:
 * a CI page must not fail a migration).
 */
export async function appendStepSummary(sources: ReportSources, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return undefined;
  try {
    await appendFile(file, renderMarkdown(await loadReportData(sources)));
    return undefined;
  } catch (err) {
    return `cannot append the report to GITHUB_STEP_SUMMARY (${file}): ${(err as Error).message}`;
  }
}
