// Every request a pull sends to a live source names the tool in its User-Agent: its name, the version
// of package.json and where to read about it; for Discord in the shape its API reference asks,
// `DiscordBot ($url, $versionNumber)`. Each source's pull runs against its fake, whose routes see the
// headers as they came over the wire.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { FAKE_SOURCE_NAMES, FAKES } from '../fakes/dist/index.js';
import { startFake } from '../fakes/helpers.mjs';
import { runCli, tempDir } from '../helpers.mjs';

const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
const v = version.replaceAll('.', '\\.');
const PRODUCT = new RegExp(`^chat-migrate/${v} \\(\\+https?://\\S+\\)$`);
const DISCORD = new RegExp(`^DiscordBot \\(https?://[^\\s,]+, ${v}\\) chat-migrate/${v}$`);

for (const name of FAKE_SOURCE_NAMES) {
  test(`pull ${name}: every request carries the tool's User-Agent`, async (t) => {
    const agents = new Set();
    const fake = FAKES[name];
    /** @type {import('../fakes/dist/index.js').FakeSource} */
    const seeing = {
      ...fake,
      route: (r, ctx) => {
        agents.add(r.headers['user-agent']);
        return fake.route(r, ctx);
      },
    };
    const server = await startFake(t, seeing, { world: { users: 4, channels: 3, messages: 40 } });
    const dir = await tempDir(`cm-pull-ua-${name}-`);
    const args = ['pull', name, '--out', 'out', '--base-url', server.url, '--source-requests-per-minute', '60000'];
    const r = await runCli(args, { cwd: dir, env: server.env });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(server.stats().requests > 3, 'the pull asked the fake');
    assert.equal(agents.size, 1, [...agents].join(' | '));
    assert.match(String([...agents][0]), name === 'discord' ? DISCORD : PRODUCT);
  });
}
