// Loaded with `node --import ./test/count-modules.mjs`: appends the URL of every module the program
// resolves through `import` to the file named by COUNT_MODULES_LOG, one a line (test/startup.test.mjs).
// A resolve hook (module.register, Node >= 20.6) runs on the loader's thread; it sees each ESM import
// and each CommonJS package imported from ESM, not the require() calls inside a CommonJS package.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) {
  log = data.log;
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

const log = process.env.COUNT_MODULES_LOG;
if (log) register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { log } });
