/**
 * The bucket the files go to, through @aws-sdk/client-s3 and lib-storage's Upload (multipart above
 * one part). Credentials come only from the SDK's default chain (environment, shared profile, SSO,
 * instance role): nothing of them is read, kept or printed here. Error texts are built from the
 * error's name and status only, since an S3-compatible server may echo request details.
 */
import { createReadStream } from 'node:fs';
import type { S3Client } from '@aws-sdk/client-s3';
import type { MediaConfig } from '../config/media-schema.js';
import { RemoteError } from '../errors.js';

/** lib-storage's part size: 8 MB parts, two at a time per file (memory: 16 MB per file in flight). */
const PART_BYTES = 8 * 1024 * 1024;

const describe = (err: unknown): string => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  const status = e?.$metadata?.httpStatusCode;
  return `${e?.name ?? e?.code ?? 'Error'}${status ? ` (HTTP ${status})` : ''}`;
};

export class Bucket {
  private constructor(
    private readonly client: S3Client,
    private readonly sdk: typeof import('@aws-sdk/client-s3'),
    private readonly config: MediaConfig,
  ) {}

  /** Opens the client and checks the bucket can be reached, so a wrong name stops the run before it sends. */
  static async open(config: MediaConfig, env: NodeJS.ProcessEnv): Promise<Bucket> {
    const sdk = await import('@aws-sdk/client-s3');
    const client = new sdk.S3Client({
      region: config.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      ...credentialsOf(env),
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      forcePathStyle: config.forcePathStyle,
    });
    const bucket = new Bucket(client, sdk, config);
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: config.bucket }));
    } catch (err) {
      client.destroy();
      throw new RemoteError(
        'MEDIA_BUCKET_UNREACHABLE',
        `media.bucket "${config.bucket}" cannot be used: ${describe(err)}`,
        {
          hint:
            'check the bucket name, media.endpoint and media.region, and the AWS credentials of the environment ' +
            '(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE)',
        },
      );
    }
    return bucket;
  }

  /** Whether an object is already stored under `key` (an earlier run, or another path to the same bytes). */
  async has(key: string): Promise<boolean> {
    try {
      await this.client.send(new this.sdk.HeadObjectCommand({ Bucket: this.config.bucket, Key: key }));
      return true;
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
      throw new Error(`HeadObject: ${describe(err)}`);
    }
  }

  async put(key: string, file: string, size: number, mimeType: string, signal: AbortSignal): Promise<void> {
    const { Upload } = await import('@aws-sdk/lib-storage');
    const upload = new Upload({
      client: this.client,
      queueSize: 2,
      partSize: PART_BYTES,
      params: {
        Bucket: this.config.bucket,
        Key: key,
        Body: createReadStream(file),
        ContentLength: size,
        ContentType: mimeType,
        // Private is the bucket's default: no ACL is sent then (buckets that enforce ownership refuse ACLs).
        ...(this.config.acl === 'public-read' ? { ACL: 'public-read' as const } : {}),
      },
    });
    const stop = () => void upload.abort().catch(() => undefined);
    signal.addEventListener('abort', stop, { once: true });
    try {
      await upload.done();
    } catch (err) {
      throw new Error(`upload: ${describe(err)}`);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  close(): void {
    this.client.destroy();
  }
}

/**
 * The run's own keys, or its profile, where its environment names them; otherwise the SDK's default
 * chain (instance roles, SSO...). The SDK alone would read the process's environment, not the run's.
 */
function credentialsOf(env: NodeJS.ProcessEnv): { credentials?: AwsCredentials; profile?: string } {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN } = env;
  if (accessKeyId && secretAccessKey) {
    return {
      credentials: { accessKeyId, secretAccessKey, ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}) },
    };
  }
  return env.AWS_PROFILE ? { profile: env.AWS_PROFILE } : {};
}

interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}
