/**
 * The chat systems chat-migrate reads, in the order every list shows them: `--preset` choices, `pull`
 * sources, `init`'s recognisers, the docs' tables. Each has a folder beside this file whose `index.ts`
 * gives its parts (shared/system.ts). This list is data alone, so every layer, the config table
 * included, reads its names from here. A new system is its folder and one line here.
 */
export interface SystemFacts {
  /** Its name in prose: `Sendbird`. */
  title: string;
  /** What `init` says it found: `a Sendbird Data Export`. */
  export: string;
  /** Whether `pull` reads it live over its API (its folder then has a `source`). */
  live: boolean;
}

export const SYSTEMS = {
  sendbird: { title: 'Sendbird', export: 'a Sendbird Data Export', live: true },
  stream: { title: 'Stream', export: 'a Stream (getstream.io) export', live: true },
  slack: { title: 'Slack', export: 'a Slack workspace export', live: true },
  discord: { title: 'Discord', export: 'a DiscordChatExporter JSON export', live: true },
  telegram: { title: 'Telegram', export: 'a Telegram Desktop export (result.json)', live: false },
  twilio: {
    title: 'Twilio Conversations',
    export: 'Twilio Conversations data (REST API pages or Twilio CLI output)',
    live: true,
  },
  mattermost: { title: 'Mattermost', export: 'a Mattermost bulk export (mmctl export)', live: false },
} as const satisfies Record<string, SystemFacts>;

export type SystemName = keyof typeof SYSTEMS;
/** The systems `pull` reads live. */
export type SourceName = { [K in SystemName]: (typeof SYSTEMS)[K]['live'] extends true ? K : never }[SystemName];

/** Every system has a preset: its names are the `preset` key's choices. */
export const PRESET_NAMES = Object.keys(SYSTEMS) as readonly SystemName[];
/** The live sources `pull` reads, each read back by the preset of the same name. */
export const SOURCE_NAMES = PRESET_NAMES.filter((name) => SYSTEMS[name].live) as readonly SourceName[];
