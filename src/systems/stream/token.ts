/**
 * Stream Chat's server-side credentials, shared by `pull stream` and the media pass's link refresher:
 * the API key (not secret, sent as the `api_key` query parameter) and a server token, a JWT signed
 * HS256 with the API secret over `{"server": true}`, as the official SDK's `JWTServerToken` makes it
 * (stream-chat-js src/signing.ts: `noTimestamp`, so the same secret always gives the same token).
 */
import { createHmac } from 'node:crypto';
import { SourceError } from '../../errors.js';

export const STREAM_ENV = { key: 'STREAM_API_KEY', secret: 'STREAM_API_SECRET' } as const;
export const STREAM_DEFAULT_BASE_URL = 'https://chat.stream-io-api.com';

export interface StreamCredentials {
  apiKey: string;
  /** The server token (secret): the `Authorization` header. */
  token: string;
  /** Headers every request carries; the key goes in the query (`api_key`). */
  headers: Record<string, string>;
  secrets: string[];
}

const base64url = (text: string | Buffer) => Buffer.from(text).toString('base64url');

/** The server token: `base64url(header).base64url(payload).HMAC-SHA256`. */
export function streamServerToken(secret: string): string {
  const signed = `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url('{"server":true}')}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

/** Reads the key and secret from the environment; a SourceError names what is missing. */
export function streamCredentials(env: Readonly<Record<string, string | undefined>>): StreamCredentials {
  const apiKey = env[STREAM_ENV.key]?.trim() ?? '';
  const secret = env[STREAM_ENV.secret]?.trim() ?? '';
  const missing = [!apiKey && STREAM_ENV.key, !secret && STREAM_ENV.secret].filter(Boolean);
  if (missing.length > 0) {
    throw new SourceError('SOURCE_CREDENTIALS_MISSING', `Stream needs ${missing.join(' and ')} in the environment`, {
      hint: "the key and secret are on the app's page of the Stream dashboard (Chat Messaging > Overview)",
    });
  }
  const token = streamServerToken(secret);
  return {
    apiKey,
    token,
    headers: { authorization: token, 'stream-auth-type': 'jwt' },
    secrets: [secret, token],
  };
}
