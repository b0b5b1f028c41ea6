/**
 * `pull discord`: a guild's members, channels, threads and messages over Discord's API v10, written as
 * DiscordChatExporter JSON for the discord preset (docs/pull/discord.md).
 */
import { SourceError } from '../../errors.js';
import type { Credentials, LiveSource } from '../shared/pull-types.js';
import { DiscordApi } from './api.js';
import { checkMessageContent, pullChannels, pullMembers, pullMessages, resolveGuild } from './walk.js';

const TOKEN = 'DISCORD_BOT_TOKEN';
const GUILD = 'DISCORD_GUILD_ID';

export const source: LiveSource = {
  name: 'discord',
  envNames: [TOKEN, GUILD],
  // Discord's global limit is 50 requests a second for a bot (rate-limits page); the routes' own
  // buckets, lower, are kept by the source's bucket gate (buckets.ts) from Discord's headers.
  defaultRequestsPerMinute: 3000,
  authHint: `check ${TOKEN}: the bot's token (Developer Portal -> your application -> Bot -> Reset Token)`,

  credentials(env): Credentials {
    const raw = env[TOKEN]?.trim();
    if (raw === undefined || raw === '')
      throw new SourceError('SOURCE_CREDENTIALS_MISSING', `discord: set ${TOKEN} to the bot's token`, {
        hint: 'Developer Portal -> your application -> Bot -> Reset Token; optionally DISCORD_GUILD_ID',
      });
    // Accept a token pasted with its scheme: `Bot xxx` is the same token.
    const token = raw.replace(/^Bot\s+/i, '');
    const guild = env[GUILD]?.trim();
    return {
      headers: { authorization: `Bot ${token}` },
      defaultBaseUrl: 'https://discord.com/api/v10',
      secrets: [token],
      facts: guild ? { guild } : {},
    };
  },

  async pull(ctx) {
    const api = new DiscordApi(ctx.http, ctx.stop);
    await checkMessageContent(api);
    const guild = await api.guild(await resolveGuild(ctx, api));
    ctx.info(`discord: pulling the server "${guild.name ?? guild.id}" (${guild.id})`);
    await pullMembers(ctx, api, guild);
    await pullChannels(ctx, api, guild);
    await pullMessages(ctx, api, guild);
  },
};
