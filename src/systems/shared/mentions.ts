/**
 * Mentions in the service's own form: the text carries `<@uid:UID>` where the source marked a
 * mention, and the message's `mentionedUserDetails` names each user (import-api.md), so the apps
 * show them and notify. The service takes at most 10 distinct mentioned users a message (validate's
 * `message.mentions.too-many`): later ones stay as the source wrote them.
 */
import type { JsonObject } from '../../entities/types.js';

export const MAX_MENTIONED_USERS = 10;

/** A mentioned user on the service. */
export interface MentionedUser {
  uid: string;
  name: string;
}

/** Where a source marks a mention: the exact text standing for it (`<@U024BE7LH>`, `@ada`). */
export interface MentionToken extends MentionedUser {
  token: string;
}

/** The text to send, with the users its templates name (in order of first mention). */
export interface PlacedMentions {
  text: string;
  users: MentionedUser[];
}

export const mentionTemplate = (uid: string): string => `<@uid:${uid}>`;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WORD_END = /[\p{L}\p{N}_]$/u;

/**
 * Replaces each token in `text` by its user's template. Longer tokens win (`@anna` before `@ann`),
 * and a token ending in a letter or digit only where no letter or digit follows, so `@ann` is no
 * mention inside `@annabel`. Undefined when nothing was placed.
 */
export function placeMentions(text: string | undefined, tokens: readonly MentionToken[]): PlacedMentions | undefined {
  if (text === undefined || tokens.length === 0) return undefined;
  const byToken = new Map<string, MentionToken>();
  for (const t of tokens) if (t.token !== '' && !byToken.has(t.token)) byToken.set(t.token, t);
  if (byToken.size === 0) return undefined;
  const alternatives = [...byToken.keys()]
    .sort((a, b) => b.length - a.length)
    .map((t) => escapeRegExp(t) + (WORD_END.test(t) ? '(?![\\p{L}\\p{N}_])' : ''));
  const pattern = new RegExp(alternatives.join('|'), 'gu');
  const users = new Map<string, MentionedUser>();
  const out = text.replace(pattern, (match) => {
    const t = byToken.get(match)!;
    if (!users.has(t.uid)) {
      if (users.size >= MAX_MENTIONED_USERS) return match;
      users.set(t.uid, { uid: t.uid, name: t.name });
    }
    return mentionTemplate(t.uid);
  });
  return users.size === 0 ? undefined : { text: out, users: [...users.values()] };
}

/** `mentionedUserDetails`: each mentioned user under its uid, as the import API wants it. */
export function mentionedUserDetails(users: readonly MentionedUser[]): JsonObject {
  const out: JsonObject = {};
  for (const u of users) out[u.uid] = { uid: u.uid, name: u.name };
  return out;
}

/** `@name` tokens for users a source lists as mentioned but writes by name in the text. */
export function atNameTokens(
  users: ReadonlyArray<{ uid: string; names: ReadonlyArray<string | undefined> }>,
): MentionToken[] {
  const out: MentionToken[] = [];
  for (const u of users) {
    const names = u.names.filter((n): n is string => n !== undefined && n.trim() !== '');
    for (const n of names) out.push({ token: `@${n}`, uid: u.uid, name: names[0] });
  }
  return out;
}
