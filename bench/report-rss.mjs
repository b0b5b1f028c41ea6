// Preloaded into a child process (`node --import ./bench/report-rss.mjs ...`): at exit, writes the
// process's peak resident set size (bytes) and its CPU time to the file named by BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const target = process.env.BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    // maxRSS is in kilobytes (getrusage's ru_maxrss on Linux).
    const report = {
      maxRssBytes: usage.maxRSS * 1024,
      userCpuMs: usage.userCPUTime / 1000,
      systemCpuMs: usage.systemCPUTime / 1000,
    };
    try {
      writeFileSync(target, JSON.stringify(report));
    } catch {
      // the bench will report the figure as missing
    }
  });
}
