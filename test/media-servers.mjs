// The media tests' servers, all on loopback: an S3-compatible bucket (s3rver) that counts uploads, and
// a file server that checks an auth header and records what it was asked.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { Agent } from 'undici';
import { Bandwidth } from '../dist/media/bandwidth.js';
import { HostRules } from '../dist/media/host-rules.js';
import { systemClock } from '../dist/clock.js';
import { DEFAULT_RETRY_POLICY } from '../dist/http/retry-policy.js';
import { tempDir, writeConfig, writeGeneratedExport } from './helpers.mjs';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

export const BUCKET = 'chat-media';
/** Odd enough that finding them in any output is a leak, not chance. */
export const FILE_TOKEN = 'tok_5d1e9c8b7a6f4e3d2c1b0a99';
/** s3rver knows the key id S3RVER and does not check SigV4 signatures: any secret passes. */
export const AWS_SECRET = 'aws-secret-0c9d8e7f6a5b4c3d2e1f';
export const AWS_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: AWS_SECRET, AWS_REGION: 'us-east-1' };

export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** An s3rver with one bucket; `uploads()` counts PUT object and multipart-start requests it got. */
export async function startBucket() {
  const directory = await mkdtemp(path.join(tmpdir(), 'cm-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  let uploads = 0;
  server.httpServer.on('request', (req) => {
    const url = new URL(req.url, 'http://x');
    const isPart = url.searchParams.has('partNumber');
    if ((req.method === 'PUT' && !isPart) || (req.method === 'POST' && url.searchParams.has('uploads'))) uploads++;
  });
  const endpoint = `http://127.0.0.1:${port}`;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    endpoint,
    uploads: () => uploads,
    async objects() {
      const out = new Map();
      const list = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
      for (const { Key } of list.Contents ?? []) {
        const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
        out.set(Key, Buffer.from(await got.Body.transformToByteArray()));
      }
      return out;
    },
    async close() {
      client.destroy();
      await server.close();
    },
  };
}

/**
 * Files by path. `/private/*` needs `Authorization: Bearer FILE_TOKEN`; `/redirect/<to>` answers 302 to
 * the URL-encoded `<to>`; `/slow/*` trickles (for a kill mid-run). `hits` records each request's path and
 * whether it carried an Authorization header.
 */
export async function startFileServer(files) {
  const hits = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    hits.push({ host: req.headers.host, path: url.pathname, auth: req.headers.authorization !== undefined });
    if (url.pathname.startsWith('/redirect/')) {
      res.writeHead(302, { location: decodeURIComponent(url.pathname.slice('/redirect/'.length)) }).end();
      return;
    }
    if (url.pathname.startsWith('/private/') && req.headers.authorization !== `Bearer ${FILE_TOKEN}`) {
      res.writeHead(403).end('forbidden');
      return;
    }
    const body = files.get(url.pathname);
    if (body === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': body.type ?? 'application/octet-stream',
      'content-length': body.bytes.length,
    });
    res.end(body.bytes);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { port, hits, close: () => new Promise((resolve) => server.close(resolve)) };
}

export const bytes = (n) => randomBytes(n);

/** A file message of user0 in grp0 whose one attachment is at `url`. */
export function mediaMessage(i, url, name, extra = {}) {
  const extension = name.split('.').pop();
  return {
    muid: `media${i}`,
    sender: 'user0',
    receiverType: 'group',
    receiver: 'grp0',
    sentAt: 1_700_000_000 + i,
    category: 'message',
    type: 'file',
    data: {
      text: `file ${i}`,
      attachments: [{ url, name, mimeType: 'application/octet-stream', extension, ...extra }],
    },
  };
}

/** Where a carried file is served from, as the test configs say. */
export const PUBLIC = 'https://media.example.test/m';

/** An export of 3 users, a group and `messages`, with `media` pointed at the test bucket. */
export async function mediaWorkspace(baseUrl, bucket, messages, media) {
  const dir = await tempDir('cm-media-');
  const { sources } = await writeGeneratedExport(dir, { users: 3, groups: 1, membersPerGroup: 3, messages: 0 });
  await writeFile(path.join(dir, 'messages.ndjson'), `${messages.map((m) => JSON.stringify(m)).join('\n')}\n`);
  await writeConfig(dir, {
    appId: 'app',
    region: 'us',
    baseUrl,
    requestsPerMinute: 6000,
    sources,
    checkpoint: 'state/ckpt.json',
    media: {
      bucket: BUCKET,
      endpoint: bucket.endpoint,
      forcePathStyle: true,
      prefix: 'att/',
      publicBaseUrl: PUBLIC,
      allowPrivateHosts: ['127.0.0.1', 'localhost'],
      ...media,
    },
  });
  return dir;
}

/**
 * What the carrier gives a download, for a loopback host allowed by name; its waits on `clock`.
 * @param {import('node:test').TestContext} t
 * @param {import('../dist/clock.js').Clock} [clock]
 */
export function downloadContext(t, clock = systemClock) {
  const dispatcher = new Agent();
  t.after(() => dispatcher.close());
  return {
    dispatcher,
    policy: DEFAULT_RETRY_POLICY,
    clock,
    rules: new HostRules({ '127.0.0.1': {} }),
    allowPrivate: new Set(['127.0.0.1']),
    bandwidth: new Bandwidth(0, clock),
    maxFileBytes: 1_000_000,
    signal: new AbortController().signal,
    limiters: new Map(),
  };
}
