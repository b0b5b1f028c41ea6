/**
 * `pull twilio`: Twilio Conversations v1 over its REST API (docs/pull/twilio.md), written as the list
 * pages the twilio preset reads.
 */
import type { LiveSource } from '../shared/pull-types.js';
import { AUTH_HINT, ENV_NAMES, twilioCredentials } from './credentials.js';
import { pullTwilio } from './walk.js';

export const source: LiveSource = {
  name: 'twilio',
  envNames: ENV_NAMES,
  /**
   * Twilio publishes no per-minute figure for Conversations reads: its 429 (error 20429) answers an
   * account's concurrency, is never processed, and is always safe to retry. 20 requests a second keeps
   * one pull well inside it; `--requests-per-minute` sets another.
   */
  defaultRequestsPerMinute: 1200,
  authHint: AUTH_HINT,
  credentials: twilioCredentials,
  pull: pullTwilio,
};
