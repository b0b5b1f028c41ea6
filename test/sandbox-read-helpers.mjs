// Helpers of the sandbox read tests: imports in requests of 50 and reads, with real fetch.
import assert from 'node:assert/strict';
import { startSandbox } from '../dist/sandbox/index.js';

export const KEY = 'test-key-read-5c1d';
export const T0 = 1_700_000_000;

/**
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('../dist/sandbox/index.js').SandboxOptions>} [options]
 */
export async function readSandbox(t, options = {}) {
  const s = await startSandbox({ apiKey: KEY, now: () => (T0 + 86_400) * 1000, ...options });
  t.after(() => s.close());
  return s;
}

/**
 * Imports `records` (keyed by `idOf`) in requests of 50; returns every per-record answer by key.
 * @returns {Promise<any>}
 */
export async function importAll(s, entity, records, idOf) {
  const answers = {};
  for (let i = 0; i < records.length; i += 50) {
    const body = { [entity]: Object.fromEntries(records.slice(i, i + 50).map((r) => [idOf(r), r])) };
    const res = await fetch(`${s.url}/v3.0/data_import/${entity}`, {
      method: 'POST',
      headers: { apikey: KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200);
    Object.assign(answers, /** @type {any} */ (await res.json()).data);
  }
  return answers;
}

/**
 * @param {{ url: string }} s
 * @param {string} path after the version, with its query
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string>, version?: string,
 *   key?: string | null }} [o]
 * @returns {Promise<{ status: number, headers: Headers, json: any }>}
 */
export async function call(s, path, { method = 'GET', body, headers = {}, version = 'v3', key = KEY } = {}) {
  const res = await fetch(`${s.url}/${version}/${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { apikey: key }),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

/**
 * Pages a message list by `id` + `affix=append` from `meta.next`, deduping by id, as read-api.md says.
 * @param {{ url: string }} s
 * @param {string} path
 * @param {{ limit?: number, headers?: Record<string, string> }} [options]
 * @returns {Promise<{ messages: any[], pages: number }>}
 */
export async function readAllMessages(s, path, { limit = 1000, headers } = {}) {
  const seen = new Map();
  let pages = 0;
  let next;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const cursor = next ? `&id=${next.id}&affix=append` : '';
    const { status, json } = await call(s, `${path}${sep}limit=${limit}${cursor}`, { headers });
    assert.equal(status, 200);
    pages++;
    for (const m of json.data) seen.set(m.id, m);
    next = json.meta.next;
    if (!next || json.data.length < limit) return { messages: [...seen.values()], pages };
  }
}

export const user = (uid, extra = {}) => ({ uid, name: `User ${uid}`, ...extra });

export const message = (muid, extra = {}) => ({
  muid,
  sender: 'u1',
  receiverType: 'user',
  receiver: 'u2',
  sentAt: T0 + 100,
  type: 'text',
  category: 'message',
  data: { text: `text of ${muid}` },
  ...extra,
});
