/**
 * `chat-migrate pull slack`: a workspace over Slack's Web API, written as the Slack export the slack
 * preset reads (users.json, channels.json, groups.json, mpims.json, dms.json, day files). What is
 * called, with which scopes and limits: docs/pull/slack.md.
 */
import { SourceError } from '../../errors.js';
import type { LiveSource } from '../shared/pull-types.js';
import { SLACK_AUTH_HINT } from './api.js';
import { pullMessages } from './history.js';
import { pullConversations, pullUsers } from './lists.js';

export const source: LiveSource = {
  name: 'slack',
  envNames: ['SLACK_TOKEN'],
  // conversations.history and conversations.replies, most of a pull's calls, are Tier 3: "50+ per
  // minute" (https://docs.slack.dev/apis/web-api/rate-limits). Tier 2 lists answer 429 past theirs.
  defaultRequestsPerMinute: 50,
  authHint: SLACK_AUTH_HINT,
  credentials(env) {
    const token = env.SLACK_TOKEN?.trim();
    if (!token) {
      throw new SourceError('SOURCE_CREDENTIALS_MISSING', 'pull slack needs SLACK_TOKEN in the environment', {
        hint: 'a bot (xoxb-) or user (xoxp-) token of an app installed in the workspace: docs/pull/slack.md',
      });
    }
    const kind = token.startsWith('xoxb-') ? 'bot' : token.startsWith('xoxp-') ? 'user' : 'other';
    return {
      headers: { authorization: `Bearer ${token}` },
      defaultBaseUrl: 'https://slack.com/api',
      secrets: [token],
      facts: { tokenKind: kind },
    };
  },
  async pull(ctx) {
    await pullUsers(ctx);
    if (ctx.stop.aborted) return;
    await pullConversations(ctx);
    if (ctx.stop.aborted) return;
    await pullMessages(ctx);
  },
};
