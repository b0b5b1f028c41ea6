/**
 * Twilio Conversations (see read.ts for what files it reads). One pre-pass over every file learns
 * the users list, the conversations, each conversation's participants (which decide whether it is
 * a group or two people's user-to-user conversation) and the message authors; then each file is read
 * again per entity it holds. Message files go oldest first (by their first message), each in its
 * own order: pages as the API lists them, by `index`.
 */
import type { JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import type { EntityPlan, RecordInput } from '../../sources/plan.js';
import { SKIP, type PresetContext } from '../shared/context.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { fileInput, listInput, plansOf, type Produced } from '../shared/inputs.js';
import { seconds, str } from '../shared/message-parts.js';
import { People } from '../shared/people.js';
import { groupRecord } from '../shared/records.js';
import {
  authorOf,
  mapTwilioConversation,
  mapTwilioMessage,
  mapTwilioParticipant,
  mapTwilioUser,
  participantId,
  participantPerson,
  type TwilioConversation,
} from './map.js';
import { field, isItemPath, itemsIn, KINDS, kindOf, LAYOUT, type TwilioKind } from './read.js';

const TWILIO_FILE = /\.(json|jsonl|ndjson)$/i;
/** An item without its sid (a user without identity): nothing would find it again on a re-run. A participant
 * without its conversation is `no-conversation`. */
const SKIP_NO_ID = 'no-id';
const ID_FIELD: Record<TwilioKind, string> = {
  users: 'identity',
  conversations: 'sid',
  participants: 'conversation_sid',
  messages: 'sid',
};

interface Seen {
  sid: string;
  listed: boolean;
  chatServiceSid?: string;
  /** People among its participants (identity or address), first seen first. */
  people: Set<string>;
  file: string;
  line: number;
}

export async function planTwilio(ctx: PresetContext): Promise<EntityPlan[]> {
  const candidates = ctx.tree.files.filter((f) => TWILIO_FILE.test(f) || ctx.tree.kind === 'file');
  const holds = new Map<string, Set<TwilioKind>>();
  const earliest = new Map<string, number>();
  const people = new People(ctx);
  const conversations = new Map<string, Seen>();
  const authors = new Map<string, { where: string; line: number }>();
  const seen = (sid: string, file: string, line: number): Seen => {
    let c = conversations.get(sid);
    if (c === undefined) conversations.set(sid, (c = { sid, listed: false, people: new Set(), file, line }));
    return c;
  };

  // Users lists first, so that participants and authors add only who the lists lack.
  for (const rel of candidates) {
    const kinds = new Set<TwilioKind>();
    for await (const { kind, value } of itemsIn(ctx, rel)) {
      kinds.add(kind);
      if (kind === 'users' && str(field(value, 'identity')) !== undefined) people.list(str(field(value, 'identity'))!);
    }
    if (kinds.size > 0) holds.set(rel, kinds);
  }
  if (holds.size === 0)
    throw new InputError('INPUT_NOT_PRESET', 'not a Twilio Conversations export: no JSON file holds conversations', {
      hint: 'save the Conversations API list pages (or `twilio api:conversations:v1:... -o json`) as .json files',
    });

  for (const rel of holds.keys()) {
    const where = ctx.tree.where(rel);
    let first = Number.POSITIVE_INFINITY;
    for await (const { kind, value, line } of itemsIn(ctx, rel)) {
      if (kind === 'conversations') {
        if (str(field(value, 'sid')) === undefined) continue;
        const c = seen(str(field(value, 'sid'))!, where, line);
        c.listed = true;
        c.chatServiceSid ??= str(field(value, 'chat_service_sid'));
        [c.file, c.line] = [where, line];
      } else if (kind === 'participants') {
        const id = participantId(value);
        const sid = str(field(value, 'conversation_sid'));
        if (id === undefined || sid === undefined) continue;
        seen(sid, where, line).people.add(id);
        people.see(id, participantPerson(value), where, line);
      } else if (kind === 'messages') {
        const sid = str(field(value, 'conversation_sid'));
        if (sid === undefined) continue;
        const c = seen(sid, where, line);
        c.chatServiceSid ??= str(field(value, 'chat_service_sid'));
        first = Math.min(first, seconds(field(value, 'date_created')) ?? first);
        const author = authorOf(value);
        if (author === undefined) people.useSystem(where, line);
        else if (!authors.has(author)) authors.set(author, { where, line });
        const sidOf = str(field(value, 'sid'));
        if (sidOf !== undefined) ctx.idMap.add('messages', sidOf, ctx.muids.of(sidOf));
      }
    }
    earliest.set(rel, first);
  }
  // Authors after every participant, whichever file came first: a participant says more of a person.
  for (const [author, at] of authors) people.see(author, {}, at.where, at.line);

  const resolved = new Map<string, TwilioConversation>();
  for (const c of conversations.values()) {
    const two = [...c.people];
    if (two.length === 2) {
      resolved.set(c.sid, {
        sid: c.sid,
        chatServiceSid: c.chatServiceSid,
        conversation: { kind: 'direct', members: [ctx.uids.of(two[0]), ctx.uids.of(two[1])] },
      });
    } else {
      resolved.set(c.sid, {
        sid: c.sid,
        chatServiceSid: c.chatServiceSid,
        conversation: { kind: 'group', guid: ctx.guids.of(c.sid) },
      });
      ctx.idMap.add('groups', c.sid, ctx.guids.of(c.sid));
    }
  }
  const isDirect = (sid: string) => resolved.get(sid)?.conversation.kind === 'direct';
  const unlisted = [...conversations.values()].filter((c) => !c.listed);

  const files = [...holds.keys()];
  const holding = (kind: TwilioKind) => files.filter((rel) => holds.get(rel)!.has(kind));
  /** One input per file and kind; the file's first kind (users, conversations...) reports its bad pieces. */
  const inputsOf = (kind: TwilioKind, rels: string[], map: (v: JsonObject) => Produced): RecordInput[] =>
    rels.map((rel) =>
      fileInput({
        ctx,
        rel,
        display: `twilio:${rel}#${kind}`,
        descend: LAYOUT,
        reportProblems: KINDS.find((k) => holds.get(rel)!.has(k)) === kind,
        accept: isItemPath,
        map: (value, _line, path) => {
          if (kindOf(value, path) !== kind) return [];
          const produced = map(value);
          // Without its id (sid; identity for a user) a record has nothing to be found again by.
          if (str(field(value, ID_FIELD[kind])) !== undefined) return [produced];
          return [one(produced.value, kind === 'participants' ? SKIP.noConversation : SKIP_NO_ID)];
        },
      }),
    );
  const one = (value: JsonObject, skip?: string): Produced => (skip === undefined ? { value } : { value, skip });
  const messageFiles = holding('messages').sort((a, b) => earliest.get(a)! - earliest.get(b)! || byCodeUnit(a, b));

  return plansOf({
    users: [...inputsOf('users', holding('users'), (u) => one(mapTwilioUser(u, ctx))), people.input()],
    groups: [
      ...inputsOf('conversations', holding('conversations'), (c) =>
        one(mapTwilioConversation(c, ctx), isDirect(str(field(c, 'sid')) ?? '') ? SKIP.direct : undefined),
      ),
      listInput(
        'twilio:conversations-from-references',
        unlisted.map((c) => ({
          file: c.file,
          line: c.line,
          skip: isDirect(c.sid) ? SKIP.direct : undefined,
          value: groupRecord({
            guid: ctx.guids.of(c.sid),
            fallbackName: c.sid,
            type: 'private',
            metadata: { twilioSid: c.sid, from: 'references' },
          }),
        })),
      ),
    ],
    members: inputsOf('participants', holding('participants'), (p) => {
      const mapped = mapTwilioParticipant(p, ctx);
      return isDirect(str(field(p, 'conversation_sid')) ?? '') ? one(mapped.value, SKIP.direct) : mapped;
    }),
    messages: inputsOf('messages', messageFiles, (m) => {
      const where = resolved.get(str(field(m, 'conversation_sid')) ?? '');
      if (where === undefined) return one(mapTwilioMessage(m, placeholder, ctx).value, SKIP.noConversation);
      return mapTwilioMessage(m, where, ctx);
    }),
  });
}

const placeholder: TwilioConversation = { sid: '', conversation: { kind: 'group', guid: 'unknown' } };
