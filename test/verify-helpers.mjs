// Shared by the verify tests: a sandbox in this process, an export written to a temp folder, and the
// CLI run in-process against both.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli, sandbox, tempDir, writeConfig } from './helpers.mjs';

/** A sandbox in this process for one test, closed after it. */
export async function verifySandbox(t, options = {}) {
  const sb = await sandbox(options);
  t.after(() => sb.close());
  return sb;
}

const DAY = 86_400;

/**
 * An export of 12 users (or `users`), 3 groups, their members and `messages` messages, one NDJSON file each; message
 * i is sent `ageDays(i)` days ago. `idCase` turns ids to mixed case (`User3`, `GRP1`, `Msg-7`), which
 * the service lower-cases.
 */
export async function writeVerifyExport(
  dir,
  { messages = 60, users: userCount = 12, ageDays = (i) => i / 10, idCase = false } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  const uid = (i) => (idCase ? `User${i}` : `user${i}`);
  const guid = (i) => (idCase ? `GRP${i}` : `grp${i}`);
  const muid = (i) => (idCase ? `Msg-${i}` : `msg${i}`);
  const lines = (records) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
  const users = Array.from({ length: userCount }, (_, i) => ({ uid: uid(i), name: `User ${i}`, tags: ['t'] }));
  const groups = Array.from({ length: 3 }, (_, i) => ({ guid: guid(i), name: `Group ${i}`, type: 'public' }));
  const members = [];
  for (let g = 0; g < 3; g++) for (let k = 0; k < 4; k++) members.push({ guid: guid(g), uid: uid(g * 4 + k) });
  const msgs = Array.from({ length: messages }, (_, i) => ({
    muid: muid(i),
    sender: uid(i % 12),
    receiverType: i % 2 ? 'user' : 'group',
    receiver: i % 2 ? uid((i + 1) % 12) : guid(i % 3),
    sentAt: now - Math.round(ageDays(i) * DAY),
    type: 'text',
    data: { text: `hello ${i}`, metadata: { n: i } },
  }));
  await writeFile(path.join(dir, 'users.ndjson'), lines(users));
  await writeFile(path.join(dir, 'groups.ndjson'), lines(groups));
  await writeFile(path.join(dir, 'members.ndjson'), lines(members));
  await writeFile(path.join(dir, 'messages.ndjson'), lines(msgs));
  return { users, groups, members, messages: msgs };
}

/** A folder with the export and a config pointing at `url`; reads and imports unthrottled. */
export async function verifyWorkspace(url, options = {}, config = {}) {
  const dir = await tempDir('cm-verify-');
  const written = await writeVerifyExport(dir, options);
  await writeConfig(dir, {
    baseUrl: url,
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.ndjson' },
      members: { path: 'members.ndjson' },
      messages: { path: 'messages.ndjson' },
    },
    requestsPerMinute: 1e9,
    restRequestsPerMinute: 1e9,
    ...config,
  });
  return { dir, ...written };
}

/** `file:line: entity id` of each line of the text report's Missing section. */
export function missingLines(stdout) {
  return stdout
    .split('\n')
    .filter((l) => l.endsWith(': not on the service'))
    .map((l) => l.trim().replace(/: not on the service$/, ''));
}

/** `options`: runCli's besides the folder (a test's `clock`). */
export const verify = (dir, args = [], options = {}) => runCli(['verify', ...args], { cwd: dir, ...options });
export const importRun = (dir, args = [], options = {}) => runCli(['import', ...args], { cwd: dir, ...options });
