import { createHash } from 'node:crypto';
import { CONFIG_KEY_NAMES, specOf } from './keys.js';

/** Field names that may hold a credential wherever they sit (a source's token, a password). */
const SECRET_NAME = /key|token|secret|password|credential|authorization/i;

/**
 * The config without its secrets: the table's secret keys, any field whose name looks like a
 * credential at any depth, and the user:password part of a URL. What the run log and report keep.
 */
export function configWithoutSecrets(config: object): Record<string, unknown> {
  const secret = new Set(CONFIG_KEY_NAMES.filter((k) => specOf(k).secret));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (secret.has(key as never) || value === undefined) continue;
    out[key] = clean(key, value);
  }
  return out;
}

function clean(name: string, value: unknown): unknown {
  if (SECRET_NAME.test(name) && typeof value !== 'object') return '***';
  if (typeof value === 'string') return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1');
  if (Array.isArray(value)) return value.map((v) => clean('', v));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = clean(k, v);
    return out;
  }
  return value;
}

/** A short digest of the config without secrets (keys sorted): two runs with the same settings share it. */
export function configDigest(config: object): string {
  return createHash('sha256')
    .update(stableJson(configWithoutSecrets(config)))
    .digest('hex')
    .slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
