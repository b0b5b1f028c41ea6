/**
 * What the Twilio pre-pass learns of one file: the kinds it holds, the users, conversations and
 * memberships it lists, the people and authors it names. Kept between runs (prepass-cache.ts), so a
 * run reads only the files that are new or changed.
 */
import type { JsonObject } from '../../entities/types.js';
import type { PresetContext } from '../shared/context.js';
import { seconds, str } from '../shared/message-parts.js';
import { addMessageIds } from '../shared/message-record.js';
import { FileSightings, type SeenInFile } from '../shared/people.js';
import { authorOf, mapTwilioMessage, participantId, participantPerson, type TwilioConversation } from './map.js';
import { field, itemsIn, type TwilioKind } from './read.js';

/** What the pre-pass learns of one file (kept between runs: prepass-cache.ts). */
export interface FileFacts {
  kinds: TwilioKind[];
  /** Each user, conversation and membership it lists (`firstKey`), at its first place in it (`spotOf`). */
  first: Record<'users' | 'conversations' | 'participants', Array<[key: string, spot: string]>>;
  /** The conversations it names (lists, or its participants and messages name), first named first. */
  conversations: NamedConversation[];
  /** Its participants as people, and its first message without an author (the system user's). */
  people: SeenInFile;
  /** Its message authors, each at the line of their first message. */
  authors: Array<[author: string, line: number]>;
  /** The first message's time (UNIX seconds); null without one. */
  earliest: number | null;
}

/** What a file tells of a conversation: its first line, what its listing says, who takes part. */
interface NamedConversation {
  sid: string;
  line: number;
  /** The line of its last listing in the file, when the file lists it. */
  listedAt?: number;
  chatServiceSid?: string;
  uniqueName?: string;
  createdAt?: number;
  /** Its participants (identity or address), first listed first. */
  people: string[];
}

/**
 * Reads one file for its facts; `full`, as the pre-pass's reading proper, also meets the people it
 * names and writes its messages' id map lines (without it, it is the look at users lists and kinds).
 */
export async function gatherFile(ctx: PresetContext, rel: string, full: boolean): Promise<FileFacts> {
  const kinds = new Set<TwilioKind>();
  const first = {
    users: new Map<string, string>(),
    conversations: new Map<string, string>(),
    participants: new Map<string, string>(),
  };
  const conversations = new Map<string, NamedConversation & { members: Set<string> }>();
  const sightings = new FileSightings();
  const authors = new Map<string, number>();
  let earliest = Number.POSITIVE_INFINITY;
  const named = (sid: string, line: number) => {
    let c = conversations.get(sid);
    if (c === undefined) conversations.set(sid, (c = { sid, line, people: [], members: new Set() }));
    return c;
  };
  for await (const { kind, value, line, spot } of itemsIn(ctx, rel)) {
    kinds.add(kind);
    const sid = str(field(value, kind === 'conversations' ? 'sid' : 'conversation_sid'));
    if (kind === 'users') {
      const identity = firstKey(kind, value);
      if (identity !== undefined && !first.users.has(identity)) first.users.set(identity, spot);
    } else if (kind === 'conversations') {
      if (sid === undefined) continue;
      if (!first.conversations.has(sid)) first.conversations.set(sid, spot);
      const c = named(sid, line);
      c.listedAt = line;
      c.chatServiceSid ??= str(field(value, 'chat_service_sid'));
      c.uniqueName ??= str(field(value, 'unique_name'));
      c.createdAt ??= seconds(field(value, 'date_created'));
    } else if (kind === 'participants') {
      const id = participantId(value);
      if (id === undefined || sid === undefined) continue;
      const key = firstKey(kind, value)!;
      if (!first.participants.has(key)) first.participants.set(key, spot);
      named(sid, line).members.add(id);
      // Met here, among the message authors, as a reading of the file meets them.
      if (full) ctx.uids.of(id);
      sightings.see(id, participantPerson(value), line);
    } else {
      if (sid === undefined) continue;
      const c = named(sid, line);
      c.chatServiceSid ??= str(field(value, 'chat_service_sid'));
      earliest = Math.min(earliest, seconds(field(value, 'date_created')) ?? earliest);
      const author = authorOf(value);
      if (author === undefined) sightings.useSystem(line);
      else if (!authors.has(author)) authors.set(author, line);
      const sidOf = str(field(value, 'sid'));
      if (full && sidOf !== undefined) addMessageIds(ctx.idMap, sidOf, mapTwilioMessage(value, placeholder, ctx));
    }
  }
  return {
    kinds: [...kinds],
    first: { users: [...first.users], conversations: [...first.conversations], participants: [...first.participants] },
    conversations: [...conversations.values()].map(({ members, ...c }) => ({ ...c, people: [...members] })),
    people: sightings.facts(),
    authors: [...authors],
    earliest: Number.isFinite(earliest) ? earliest : null,
  };
}

/** The key a record is listed again under: a user's identity, a conversation's sid, a membership. */
export function firstKey(kind: 'users' | 'conversations' | 'participants', value: JsonObject): string | undefined {
  if (kind === 'users') return str(field(value, 'identity'));
  if (kind === 'conversations') return str(field(value, 'sid'));
  const id = participantId(value);
  return id === undefined ? undefined : `${str(field(value, 'conversation_sid'))}\n${id}`;
}

/** For the pre-pass, and a message without its conversation: only its ids matter. */
export const placeholder: TwilioConversation = {
  sid: '',
  guid: 'unknown',
  conversation: { kind: 'group', guid: 'unknown' },
};
