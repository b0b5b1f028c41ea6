// The service's side of the tool held to the vendor's own OpenAPI documents, not to our sandbox alone:
// every request import, verify (with --repair) and undo send, and every answer the sandbox gives, is
// checked against CometChat's data-import-apis.json and chat-apis.json (test/vendor-specs/cometchat/).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { specCheckFor } from '../fakes/dist/spec-check.js';
import { fixtureWorkspace, runCli, sandbox } from '../helpers.mjs';

const check = await specCheckFor('cometchat');
const ABSENT =
  "CometChat's OpenAPI documents are not in the repository (their licence grants no redistribution): " +
  'copy chat-apis.json and data-import-apis.json into test/vendor-specs/cometchat/ as its README.md says';

/**
 * A sandbox whose every exchange is checked; its violations, one line per kind, sorted.
 * @param {import('../fakes/dist/spec-check.js').SpecCheck} spec
 * @param {Parameters<typeof sandbox>[0]} [options]
 */
async function checkedSandbox(spec, options = {}) {
  const found = new Set();
  let origin = 'http://127.0.0.1';
  const sb = await sandbox({
    ...options,
    onExchange: (request, reply) => {
      const text = request.body?.toString('utf8') ?? '';
      const body = text === '' ? undefined : JSON.parse(text);
      const asked = { method: request.method, url: new URL(request.url, origin), headers: request.headers, body };
      for (const line of spec.check(asked, reply)) found.add(line);
    },
  });
  origin = sb.url;
  return { sb, violations: () => [...found].sort() };
}

test('import, verify --repair and undo follow CometChat’s own API documents', { skip: !check && ABSENT }, async (t) => {
  // A share of the records is lost once, so verify finds them missing and --repair sends them again.
  const { sb, violations } = await checkedSandbox(/** @type {any} */ (check), { faults: { loseShare: 0.2 } });
  t.after(() => sb.close());
  const dir = await fixtureWorkspace(sb.url);
  const fast = ['--rest-requests-per-minute', '100000'];
  // --repair reads everything back as verify does, then sends the missing records again.
  const steps = [['import'], ['verify', '--repair', ...fast], ['undo', '--yes', '--concurrency', '16', ...fast]];
  for (const args of steps) {
    const run = await runCli(args, { cwd: dir });
    assert.equal(run.code, 0, `${args.join(' ')}: exit ${run.code}\n${run.stderr}`);
  }
  assert.ok(sb.stats().perEntity.messages.lost > 0, 'some records were lost, for --repair to send again');
  assert.ok(sb.stats().perEntity.messages.deleted > 0, 'undo deleted the messages');
  assert.deepEqual(violations(), [], "out of CometChat's API documents (test/vendor-specs/cometchat/)");
});
