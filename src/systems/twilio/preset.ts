/**
 * Twilio Conversations (see read.ts for what files it reads). One pre-pass over every file learns
 * the users list, the conversations, each conversation's participants (which decide whether it is
 * a group or two people's user-to-user conversation) and the message authors (prepass.ts; kept
 * between runs, so a file unchanged since is not read again); then each file is read per entity it
 * holds. Message files go oldest first (by their first message), each in its own order: pages as the
 * API lists them, by `index`.
 */
import type { JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import type { EntityPlan, RecordInput } from '../../sources/plan.js';
import { SKIP, type PresetContext } from '../shared/context.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { fileInput, listInput, plansOf, type Produced } from '../shared/inputs.js';
import { str } from '../shared/message-parts.js';
import { messageItems } from '../shared/message-record.js';
import { People } from '../shared/people.js';
import { groupRecord } from '../shared/records.js';
import {
  mapTwilioConversation,
  mapTwilioMessage,
  mapTwilioParticipant,
  mapTwilioUser,
  type TwilioConversation,
} from './map.js';
import { type FileFacts, firstKey, gatherFile, placeholder } from './prepass.js';
import { field, isItemPath, KINDS, kindOf, LAYOUT, placeOf, pullRunOrder, spotOf, type TwilioKind } from './read.js';

const TWILIO_FILE = /\.(json|jsonl|ndjson)$/i;
/** An item without its sid (a user without identity): nothing would find it again on a re-run. A participant
 * without its conversation is `no-conversation`. */
const SKIP_NO_ID = 'no-id';
/**
 * A user, conversation or participant a later `pull` run folder lists again (a delta lists those changed
 * since): the first copy, the oldest, is the record; the import API cannot update one already in.
 */
const SKIP_PULLED_AGAIN = 'pulled-again';
const ID_FIELD: Record<TwilioKind, string> = {
  users: 'identity',
  conversations: 'sid',
  participants: 'conversation_sid',
  messages: 'sid',
};

interface Seen {
  sid: string;
  listed: boolean;
  uniqueName?: string;
  createdAt?: number;
  chatServiceSid?: string;
  /** People among its participants (identity or address), first seen first. */
  people: Set<string>;
  file: string;
  line: number;
}

export async function planTwilio(ctx: PresetContext): Promise<EntityPlan[]> {
  const candidates = ctx.tree.files.filter((f) => TWILIO_FILE.test(f) || ctx.tree.kind === 'file').sort(pullRunOrder);
  const holds = new Map<string, Set<TwilioKind>>();
  const earliest = new Map<string, number>();
  const people = new People(ctx);
  const conversations = new Map<string, Seen>();
  const authors = new Map<string, { where: string; line: number }>();
  /** Where each user, conversation and participant is first listed: later copies are `pulled-again`. */
  const firstPlace = {
    users: new Map<string, string>(),
    conversations: new Map<string, string>(),
    participants: new Map<string, string>(),
  };
  const firstAt = (kind: keyof typeof firstPlace, key: string, place: string) => {
    if (!firstPlace[kind].has(key)) firstPlace[kind].set(key, place);
  };
  const seen = (sid: string, file: string, line: number): Seen => {
    let c = conversations.get(sid);
    if (c === undefined) conversations.set(sid, (c = { sid, listed: false, people: new Set(), file, line }));
    return c;
  };

  // Users lists first, so that participants and authors add only who the lists lack. A file seen in an
  // earlier run and unchanged tells them from the cache; the others are read for them here.
  for (const rel of candidates) {
    const facts = (await ctx.prepass.peek<FileFacts>(ctx, rel)) ?? (await gatherFile(ctx, rel, false));
    for (const [identity, spot] of facts.first.users) {
      people.list(identity);
      firstAt('users', identity, placeOf(rel, spot));
    }
    if (facts.kinds.length > 0) holds.set(rel, new Set(facts.kinds));
  }
  if (holds.size === 0)
    throw new InputError('INPUT_NOT_PRESET', 'not a Twilio Conversations export: no JSON file holds conversations', {
      hint: 'save the Conversations API list pages (or `twilio api:conversations:v1:... -o json`) as .json files',
    });

  // Every file (also those that hold nothing, so that no run reads them again), in full or from the cache.
  for (const rel of candidates) {
    const facts = await ctx.prepass.factsOf(ctx, rel, () => gatherFile(ctx, rel, true));
    if (!holds.has(rel)) continue;
    const where = ctx.tree.where(rel);
    for (const named of facts.conversations) {
      const c = seen(named.sid, where, named.line);
      if (named.listedAt !== undefined) [c.listed, c.file, c.line] = [true, where, named.listedAt];
      c.chatServiceSid ??= named.chatServiceSid;
      c.uniqueName ??= named.uniqueName;
      c.createdAt ??= named.createdAt;
      for (const id of named.people) c.people.add(id);
    }
    for (const [sid, spot] of facts.first.conversations) firstAt('conversations', sid, placeOf(rel, spot));
    for (const [key, spot] of facts.first.participants) firstAt('participants', key, placeOf(rel, spot));
    people.apply(facts.people, where);
    for (const [author, line] of facts.authors) if (!authors.has(author)) authors.set(author, { where, line });
    earliest.set(rel, facts.earliest ?? Number.POSITIVE_INFINITY);
  }
  // Authors after every participant, whichever file came first: a participant says more of a person.
  for (const [author, at] of authors) people.see(author, {}, at.where, at.line);

  const resolved = new Map<string, TwilioConversation>();
  for (const c of conversations.values()) {
    const two = [...c.people];
    // A conversation Twilio names by uniqueName is addressed by it in apps: that is its guid.
    const guid = ctx.guids.of(c.uniqueName ?? c.sid);
    const base = { sid: c.sid, guid, createdAt: c.createdAt, chatServiceSid: c.chatServiceSid };
    if (two.length === 2) {
      resolved.set(c.sid, {
        ...base,
        conversation: { kind: 'direct', members: [ctx.uids.of(two[0]), ctx.uids.of(two[1])] },
      });
    } else {
      resolved.set(c.sid, { ...base, conversation: { kind: 'group', guid } });
      ctx.idMap.add('groups', c.sid, guid);
    }
  }
  // Twilio records no creator: a group's owner is its first participant, as the vendor's guide has it.
  const firstParticipant = (sid: string) => conversations.get(sid)?.people.values().next().value;
  const isDirect = (sid: string) => resolved.get(sid)?.conversation.kind === 'direct';
  const unlisted = [...conversations.values()].filter((c) => !c.listed);

  const files = [...holds.keys()];
  const holding = (kind: TwilioKind) => files.filter((rel) => holds.get(rel)!.has(kind));
  /** One input per file and kind; the file's first kind (users, conversations...) reports its bad pieces. */
  const inputsOf = (kind: TwilioKind, rels: string[], map: (v: JsonObject) => Produced | Produced[]): RecordInput[] =>
    rels.map((rel) =>
      fileInput({
        ctx,
        rel,
        display: `twilio:${rel}#${kind}`,
        descend: LAYOUT,
        reportProblems: KINDS.find((k) => holds.get(rel)!.has(k)) === kind,
        accept: isItemPath,
        map: (value, line, path) => {
          if (kindOf(value, path) !== kind) return [];
          const produced = [map(value)].flat();
          // Without its id (sid; identity for a user) a record has nothing to be found again by.
          if (str(field(value, ID_FIELD[kind])) === undefined)
            return [one(produced[0].value, kind === 'participants' ? SKIP.noConversation : SKIP_NO_ID)];
          const first = kind === 'messages' ? undefined : firstPlace[kind].get(firstKey(kind, value) ?? '');
          if (first !== undefined && first !== placeOf(rel, spotOf(line, path)))
            return [one(produced[0].value, SKIP_PULLED_AGAIN)];
          return produced;
        },
      }),
    );
  const one = (value: JsonObject, skip?: string): Produced => (skip === undefined ? { value } : { value, skip });
  const messageFiles = holding('messages').sort((a, b) => earliest.get(a)! - earliest.get(b)! || byCodeUnit(a, b));

  return plansOf({
    users: [...inputsOf('users', holding('users'), (u) => one(mapTwilioUser(u, ctx))), people.input()],
    groups: [
      ...inputsOf('conversations', holding('conversations'), (c) =>
        one(
          mapTwilioConversation(c, firstParticipant(str(field(c, 'sid')) ?? ''), ctx),
          isDirect(str(field(c, 'sid')) ?? '') ? SKIP.direct : undefined,
        ),
      ),
      listInput(
        'twilio:conversations-from-references',
        unlisted.map((c) => ({
          file: c.file,
          line: c.line,
          skip: isDirect(c.sid) ? SKIP.direct : undefined,
          value: groupRecord({
            guid: resolved.get(c.sid)!.guid,
            fallbackName: c.sid,
            type: 'private',
            owner: firstParticipant(c.sid) && ctx.uids.of(firstParticipant(c.sid)!),
            metadata: { twilioSid: c.sid, from: 'references' },
          }),
        })),
      ),
    ],
    members: inputsOf('participants', holding('participants'), (p) => {
      const sid = str(field(p, 'conversation_sid')) ?? '';
      const mapped = mapTwilioParticipant(p, resolved.get(sid) ?? { guid: ctx.guids.of(sid) }, ctx);
      return isDirect(str(field(p, 'conversation_sid')) ?? '') ? one(mapped.value, SKIP.direct) : mapped;
    }),
    messages: inputsOf('messages', messageFiles, (m) => {
      const where = resolved.get(str(field(m, 'conversation_sid')) ?? '');
      if (where === undefined) return [one(mapTwilioMessage(m, placeholder, ctx).value, SKIP.noConversation)];
      return messageItems(mapTwilioMessage(m, where, ctx));
    }),
  });
}
