/**
 * The `media` key's own shape: where attachments are re-hosted (an S3-compatible bucket) and which
 * are carried (hosts on an allow-list, files inside the export folder). Its fields are described once
 * here, for the checks, the defaults and the reference page. No secret is ever a value here: a host's
 * header names the environment variable that holds its value; bucket credentials come from the AWS
 * SDK's own chain (environment, shared profile, instance role).
 */
import { keyProblem, type ConfigProblems } from './problems.js';
import { isPlainObject } from './sources-schema.js';
import { unknownKeyText } from './suggest.js';

/** The service's per-file limit (docs/api-contract.md, "Limits"): the largest file a message may carry. */
export const MAX_MEDIA_FILE_BYTES = 100 * 1024 * 1024;

/**
 * The header a host's downloads carry: `header: <prefix><value of $valueEnv>`; or HTTP Basic from two
 * variables (`basic`: Twilio's API key and secret), which one header value cannot name.
 */
export interface MediaHostAuth {
  header: string;
  valueEnv: string;
  prefix?: string;
  basic: { userEnv: string; passwordEnv: string };
}

export interface MediaConfig {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region?: string;
  forcePathStyle: boolean;
  publicBaseUrl: string;
  acl: 'private' | 'public-read';
  /** hostname (or `*.domain`) -> its auth header, or `{}` for none. */
  hosts: Record<string, Partial<MediaHostAuth>>;
  exportFiles: boolean;
  allowPrivateHosts: string[];
  concurrency: number;
  /** Bytes per second over all downloads; 0: no limit. */
  bandwidth: number;
  maxFileBytes: number;
}

/** The fields of `media`, in the order the reference page shows them, with their defaults. */
export const MEDIA_FIELDS = {
  bucket: { help: 'the S3 bucket the files go to (required)' },
  prefix: {
    default: 'media/',
    help: 'put before every object key: `<prefix><sha256 of the bytes>` (no extension: one object per content)',
  },
  endpoint: { help: 'an S3-compatible endpoint (MinIO, R2, Spaces...); AWS S3 when left out' },
  region: { help: "the bucket's region; by default the AWS chain's (AWS_REGION, the profile), else us-east-1" },
  forcePathStyle: {
    default: false,
    help: 'address the bucket as `<endpoint>/<bucket>/<key>` (most S3-compatible servers)',
  },
  publicBaseUrl: {
    help: 'the URL the app reaches the bucket at: attachment URLs become `<publicBaseUrl>/<key>` (required)',
  },
  acl: { default: 'private', help: '`private`, or `public-read` to let anyone with the URL read the objects' },
  hosts: {
    default: {},
    help:
      'the allow-list: hostname (or `*.example.com`) -> `{}`, or the header its downloads carry: ' +
      '`{"header": "Authorization", "valueEnv": "SLACK_TOKEN", "prefix": "Bearer "}`, or HTTP Basic from two ' +
      'variables: `{"basic": {"userEnv": "TWILIO_API_KEY", "passwordEnv": "TWILIO_API_SECRET"}}` ' +
      '(values are read from the environment)',
  },
  exportFiles: {
    default: false,
    help: 'carry files inside the export folder (relative paths of Telegram, DiscordChatExporter)',
  },
  allowPrivateHosts: {
    default: [],
    help:
      'host names fetched although they resolve to private or loopback addresses (a NAS on the LAN); ' +
      'never link-local or cloud metadata addresses',
  },
  concurrency: { default: 4, help: 'files carried at once' },
  bandwidth: { default: 0, help: 'bytes per second over all downloads; 0: no limit' },
  maxFileBytes: {
    default: MAX_MEDIA_FILE_BYTES,
    help: "larger files are not carried (at most 104857600, the service's 100 MB)",
  },
} as const;

/** What `.migrate.config.example.json` shows for `media`. */
export const EXAMPLE_MEDIA = {
  bucket: 'my-chat-media',
  prefix: 'media/',
  region: 'eu-west-1',
  publicBaseUrl: 'https://media.example.com',
  hosts: { 'files.slack.com': { header: 'Authorization', valueEnv: 'SLACK_TOKEN', prefix: 'Bearer ' } },
  exportFiles: true,
} as const;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks `media` of one layer, adding a problem for each thing wrong with it; defaults filled in. */
export function checkMedia(where: string, value: unknown, problems: ConfigProblems): MediaConfig | undefined {
  const fail = (at: string, text: string) => problems.add(at, keyProblem(where, at, text));
  if (!isPlainObject(value)) {
    fail('media', 'must be an object like {"bucket": "...", "publicBaseUrl": "https://..."}');
    return undefined;
  }
  const before = problems.list.length;
  for (const key of Object.keys(value).filter((k) => !Object.hasOwn(MEDIA_FIELDS, k)))
    fail(`media.${key}`, unknownKeyText(key, Object.keys(MEDIA_FIELDS)));
  const v = value as Record<string, unknown>;
  const text = (key: string, required: boolean) => {
    if (v[key] === undefined) {
      if (required) fail(`media.${key}`, 'is required');
    } else if (typeof v[key] !== 'string' || v[key] === '') fail(`media.${key}`, 'must be a non-empty string');
  };
  text('bucket', true);
  text('prefix', false);
  text('region', false);
  for (const key of ['endpoint', 'publicBaseUrl']) {
    text(key, key === 'publicBaseUrl');
    if (typeof v[key] === 'string' && !/^https?:\/\/[^/]/.test(v[key] as string))
      fail(`media.${key}`, 'must be an http(s) URL');
  }
  for (const key of ['forcePathStyle', 'exportFiles'])
    if (v[key] !== undefined && typeof v[key] !== 'boolean') fail(`media.${key}`, 'must be true or false');
  if (v.acl !== undefined && v.acl !== 'private' && v.acl !== 'public-read')
    fail('media.acl', 'must be "private" or "public-read"');
  const ints: [string, number, number][] = [
    ['concurrency', 1, 256],
    ['bandwidth', 0, Number.MAX_SAFE_INTEGER],
    ['maxFileBytes', 1, MAX_MEDIA_FILE_BYTES],
  ];
  for (const [key, min, max] of ints) {
    const n = v[key];
    if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max))
      fail(`media.${key}`, `must be a whole number from ${min} to ${max}`);
  }
  const names = v.allowPrivateHosts;
  if (names !== undefined && !(Array.isArray(names) && names.every((n) => typeof n === 'string' && n !== '')))
    fail('media.allowPrivateHosts', 'must be a list of host names');
  checkHosts(v.hosts, fail);
  if (problems.list.length > before) return undefined;
  const defaults = Object.fromEntries(
    Object.entries(MEDIA_FIELDS).flatMap(([k, f]) => ('default' in f ? [[k, f.default]] : [])),
  );
  return { ...defaults, ...v } as unknown as MediaConfig;
}

function checkBasic(at: string, basic: unknown, withHeader: boolean, fail: (at: string, text: string) => void): void {
  if (withHeader) fail(at, 'is the Authorization header: leave out "header" and "valueEnv"');
  const shape = 'must be {"userEnv": "...", "passwordEnv": "..."}: the variables holding the user and the password';
  if (!isPlainObject(basic)) {
    fail(at, shape);
    return;
  }
  for (const key of Object.keys(basic).filter((k) => k !== 'userEnv' && k !== 'passwordEnv'))
    fail(`${at}.${key}`, unknownKeyText(key, ['userEnv', 'passwordEnv']));
  for (const key of ['userEnv', 'passwordEnv'] as const) {
    const name = (basic as Record<string, unknown>)[key];
    if (typeof name !== 'string' || !ENV_NAME.test(name))
      fail(`${at}.${key}`, 'must name an environment variable (the value itself never goes in the config)');
  }
}

function checkHosts(hosts: unknown, fail: (at: string, text: string) => void): void {
  if (hosts === undefined) return;
  if (!isPlainObject(hosts)) {
    fail('media.hosts', 'must be an object of hostname -> {} or {"header", "valueEnv", "prefix"}');
    return;
  }
  for (const [host, auth] of Object.entries(hosts)) {
    const at = `media.hosts.${host}`;
    if (!/^(\*\.)?[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i.test(host))
      fail(at, 'must be a host name (no scheme, port or path)');
    if (!isPlainObject(auth)) {
      fail(at, 'must be {} or {"header": "...", "valueEnv": "...", "prefix": "..."}');
      continue;
    }
    const fields = ['header', 'valueEnv', 'prefix', 'basic'];
    for (const key of Object.keys(auth).filter((k) => !fields.includes(k)))
      fail(`${at}.${key}`, unknownKeyText(key, fields));
    const { header, valueEnv, prefix, basic } = auth;
    if (basic !== undefined) checkBasic(`${at}.basic`, basic, header !== undefined, fail);
    if ((header === undefined) !== (valueEnv === undefined)) fail(at, 'needs both "header" and "valueEnv", or neither');
    if (header !== undefined && (typeof header !== 'string' || !HEADER_NAME.test(header)))
      fail(`${at}.header`, 'must be an HTTP header name');
    if (valueEnv !== undefined && (typeof valueEnv !== 'string' || !ENV_NAME.test(valueEnv)))
      fail(`${at}.valueEnv`, 'must name an environment variable (the value itself never goes in the config)');
    if (prefix !== undefined && typeof prefix !== 'string') fail(`${at}.prefix`, 'must be a string');
  }
}
