#!/usr/bin/env node
// The one place that touches the process: its arguments, streams, signals and exit code.
import { main } from '../dist/cli/main.js';

const args = process.argv.slice(2);
// One switch that every part reads, the UI packages included (no-color.org: any non-empty value).
if (args.includes('--no-color')) process.env.NO_COLOR = '1';
// The AWS SDK warns on Node < 22 at its first client; the tool pins a version that runs on 20, so the
// warning is not the user's to act on and is kept out of the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.exitCode = await main(args, {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signals: process,
  exit: (code) => process.exit(code),
  // The memory budget is import's and validate's; the sandbox stands in for a remote service, and a heap
  // held small would only spend its CPU on GC that the tool it serves then waits for.
  onCommand: async (name) => {
    if (name !== 'sandbox') (await import('../dist/cli/heap-budget.js')).keepHeapSmall();
  },
});
