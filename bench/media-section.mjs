// The bench's `media` section (issue 18): 1,000 distinct files of 1 MB re-hosted during an import.
// A file server (node:http) and an S3-compatible server (s3rver, on disk) run in the bench process;
// the tool runs in its own process (its peak RSS is its own), the sandbox in another.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import S3rver from 's3rver';
import { BIN, RUN_DIR, SANDBOX_KEY, lastJson, runNode, startSandboxChild, writeBenchConfig } from './children.mjs';
import { mb, num } from './table.mjs';

const FILES = 1000;
const FILE_BYTES = 1024 * 1024;

/** Distinct files from one random megabyte: file i starts with its own number. */
function fileServer() {
  const base = randomBytes(FILE_BYTES);
  const server = createServer((req, res) => {
    const i = Number(/^\/f(\d+)\.bin$/.exec(req.url ?? '')?.[1]);
    if (!Number.isInteger(i)) return res.writeHead(404).end();
    const body = Buffer.from(base);
    body.writeUInt32BE(i, 0);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': FILE_BYTES }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function measureMedia({ log, row, concurrency }) {
  const dir = path.join(RUN_DIR, 'media');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = await fileServer();
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: path.join(dir, 's3'),
    configureBuckets: [{ name: 'bench-media' }],
  });
  const { port: s3Port } = await s3.run();
  const sb = await startSandboxChild({});
  try {
    const filePort = files.address().port;
    const lines = [];
    for (let i = 0; i < FILES; i++) {
      const url = `http://127.0.0.1:${filePort}/f${i}.bin`;
      const attachment = { url, name: `f${i}.bin`, mimeType: 'application/octet-stream', extension: 'bin' };
      lines.push(
        JSON.stringify({
          muid: `m${i}`,
          sender: 'u0',
          receiverType: 'user',
          receiver: 'u1',
          sentAt: 1_700_000_000 + i,
          category: 'message',
          type: 'file',
          data: { attachments: [attachment] },
        }),
      );
    }
    writeFileSync(path.join(dir, 'messages.ndjson'), `${lines.join('\n')}\n`);
    writeFileSync(path.join(dir, 'users.ndjson'), '{"uid":"u0","name":"A"}\n{"uid":"u1","name":"B"}\n');
    const config = writeBenchConfig(
      dir,
      {
        baseUrl: sb.url,
        sources: { users: path.join(dir, 'users.ndjson'), messages: path.join(dir, 'messages.ndjson') },
        media: {
          bucket: 'bench-media',
          endpoint: `http://127.0.0.1:${s3Port}`,
          forcePathStyle: true,
          publicBaseUrl: 'https://media.example.test',
          hosts: { '127.0.0.1': {} },
          allowPrivateHosts: ['127.0.0.1'],
          concurrency,
        },
      },
      { keep: true },
    );
    log(`import re-hosting ${num(FILES)} files of 1 MB (s3rver on disk, media.concurrency ${concurrency}) ...`);
    const result = await runNode(BIN, ['import', '--json', '--fresh', '-c', config], {
      env: { MIGRATE_API_KEY: SANDBOX_KEY, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
    });
    const summary = lastJson(result, 'import with media');
    const m = summary.media;
    const mbPerSec = m.bytes / 1024 / 1024 / (m.elapsedMs / 1000);
    const ok = summary.status === 'completed' && m.uploaded === FILES && m.failed === 0;
    row(
      'media',
      `${num(FILES)} files of 1 MB re-hosted: throughput`,
      `${mbPerSec.toFixed(1)} MB/s (${num(m.uploaded)} uploaded in ${(m.elapsedMs / 1000).toFixed(1)} s; ` +
        `import ${(result.ms / 1000).toFixed(1)} s)`,
      'all carried',
      ok,
    );
    row('media', `${num(FILES)} files of 1 MB re-hosted: peak RSS`, mb(result.rss?.maxRssBytes), 'flat', null);
    return { files: FILES, fileBytes: FILE_BYTES, media: m, ms: result.ms, rss: result.rss, status: summary.status };
  } finally {
    await sb.stop();
    await s3.close();
    await new Promise((resolve) => files.close(resolve));
  }
}
