/**
 * Twilio's credentials, from the environment only: HTTP Basic with an API key and its secret (Twilio's
 * advice for production) or the account SID and its auth token. `TWILIO_ACCOUNT_SID` is needed either
 * way: it says which account the key must belong to, and it is the auth token's user name.
 */
import { ConfigError, SourceError } from '../../errors.js';
import type { Credentials } from '../shared/pull-types.js';

/** Conversations v1; the paths carry `/v1`, so `--base-url http://127.0.0.1:PORT` reaches a fake as it is. */
export const DEFAULT_BASE_URL = 'https://conversations.twilio.com';
/** The Media Content Service, where message media live (Twilio's Media resource page). */
export const DEFAULT_MEDIA_BASE_URL = 'https://mcs.us1.twilio.com';

export const ENV_NAMES = [
  'TWILIO_ACCOUNT_SID',
  'TWILIO_API_KEY',
  'TWILIO_API_SECRET',
  'TWILIO_AUTH_TOKEN',
  'TWILIO_CONVERSATIONS_SERVICE_SID',
  'TWILIO_MEDIA_BASE_URL',
] as const;

export const AUTH_HINT =
  'check TWILIO_ACCOUNT_SID with TWILIO_API_KEY and TWILIO_API_SECRET (an API key of that account), ' +
  'or TWILIO_ACCOUNT_SID with TWILIO_AUTH_TOKEN';

type Env = Readonly<Record<string, string | undefined>>;

export function twilioCredentials(env: Env): Credentials {
  const value = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const account = value('TWILIO_ACCOUNT_SID');
  const key = value('TWILIO_API_KEY');
  const secret = value('TWILIO_API_SECRET');
  const token = value('TWILIO_AUTH_TOKEN');
  const missing: string[] = [];
  if (account === undefined) missing.push('TWILIO_ACCOUNT_SID');
  if (key !== undefined && secret === undefined) missing.push('TWILIO_API_SECRET');
  if (key === undefined && secret !== undefined) missing.push('TWILIO_API_KEY');
  if (key === undefined && secret === undefined && token === undefined)
    missing.push('TWILIO_API_KEY and TWILIO_API_SECRET (or TWILIO_AUTH_TOKEN)');
  if (missing.length > 0)
    throw new SourceError('SOURCE_CREDENTIALS_MISSING', `pull twilio needs ${missing.join(', ')} in the environment`, {
      hint: AUTH_HINT,
    });
  // An API key wins over the auth token when both are set: it is the narrower credential.
  const [user, password] = key !== undefined ? [key, secret!] : [account!, token!];
  const basic = Buffer.from(`${user}:${password}`).toString('base64');
  const facts: Record<string, string> = { accountSid: account! };
  const service = value('TWILIO_CONVERSATIONS_SERVICE_SID');
  if (service !== undefined) facts.serviceSid = service;
  const media = value('TWILIO_MEDIA_BASE_URL') ?? DEFAULT_MEDIA_BASE_URL;
  if (!/^https?:\/\/[^/]+/i.test(media))
    throw new ConfigError('CONFIG_INVALID', `TWILIO_MEDIA_BASE_URL must be an http(s) URL (got "${media}")`);
  facts.mediaBaseUrl = new URL(media).origin;
  return {
    headers: { authorization: `Basic ${basic}` },
    defaultBaseUrl: DEFAULT_BASE_URL,
    secrets: [password, basic],
    facts,
  };
}
