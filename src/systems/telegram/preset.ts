/**
 * Telegram Desktop's JSON export, `result.json`: one chat (`{name, type, id, messages}`) or a full
 * export (`personal_information`, `chats.list[]`, `left_chats.list[]`, each chat with its messages).
 * One file holds everything, so it is one messages input read once in file order (chats one after
 * another, each oldest first); users, groups and members come from the pre-pass over it.
 */
import { InputError } from '../../errors.js';
import type { EntityPlan } from '../../sources/plan.js';
import { SKIP, type PresetContext } from '../shared/context.js';
import { fileInput, listInput, pieces, plansOf } from '../shared/inputs.js';
import type { JsonPath } from '../../sources/read-pieces.js';
import { str } from '../shared/message-parts.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { People } from '../shared/people.js';
import { groupOwner, groupRecord, memberRecord } from '../shared/records.js';
import { addMessageIds, messageItems } from '../shared/message-record.js';
import { mapTelegramMessage, PERSONAL_TYPES, telegramSender, type TelegramChat } from './map.js';

const SECTIONS = new Set(['chats', 'left_chats']);
const CREATE_ACTIONS = new Set(['create_group', 'create_channel', 'migrate_from_group']);
const PUBLIC_TYPES = new Set(['public_supergroup', 'public_channel']);
const CHAT_FIELDS = new Set(['name', 'type', 'id']);

/** Walk into the chat lists and each chat's messages; cut out everything else (each message, each chat field). */
const DESCEND = (p: JsonPath): boolean => {
  if (p.length === 0) return true;
  if (p[0] === 'messages') return p.length === 1;
  if (!SECTIONS.has(String(p[0]))) return false;
  if (p.length <= 1) return true;
  if (p[1] !== 'list') return false;
  return p.length <= 3 || (p.length === 4 && p[3] === 'messages');
};

/** Which chat a piece belongs to (`single` for a one-chat export, `chats.3` in a full one) and what it is. */
function placeOf(path: JsonPath): { chat: string; field: string | number } | undefined {
  if (path.length === 1) return CHAT_FIELDS.has(String(path[0])) ? { chat: 'single', field: path[0] } : undefined;
  if (path.length === 2 && path[0] === 'messages') return { chat: 'single', field: 'messages' };
  if (path.length >= 4 && SECTIONS.has(String(path[0])))
    return { chat: `${String(path[0])}.${String(path[2])}`, field: path[3] };
  return undefined;
}

interface ChatEntry {
  id: string;
  name?: string;
  type: string;
  line: number;
  creator?: string;
  senders: Map<string, number>;
  chat?: TelegramChat;
  /** The file the chat is in, as shown. */
  where: string;
}

export async function planTelegram(ctx: PresetContext): Promise<EntityPlan[]> {
  // Every result.json: a full export is one, and several one-chat exports in a folder are one migration.
  const rels =
    ctx.tree.kind === 'file'
      ? [ctx.tree.files[0]]
      : ctx.tree.files.filter((f) => f.split('/').pop() === 'result.json').sort(byCodeUnit);
  if (rels.length === 0)
    throw new InputError('INPUT_NOT_PRESET', 'not a Telegram Desktop export: no result.json found', {
      hint: 'export as "Machine-readable JSON" in Telegram Desktop',
    });
  const people = new People(ctx);
  const chats = new Map<string, ChatEntry>();
  const state = { self: undefined as string | undefined };
  for (const rel of rels) await seeChats(ctx, rel, people, chats, state);
  const self = state.self;

  for (const chat of chats.values()) {
    // Two people: the exporting user (personal_information, else whoever else wrote) and the chat's user.
    const other = `user${chat.id}`;
    const me = self ?? [...chat.senders.keys()].find((s) => s !== other);
    const direct =
      chat.type === 'saved_messages' ? me !== undefined : PERSONAL_TYPES.has(chat.type) && me !== undefined;
    if (direct) {
      const counterpart = chat.type === 'saved_messages' ? me! : other;
      people.see(counterpart, { name: chat.name }, chat.where, chat.line);
      chat.chat = {
        id: chat.id,
        type: chat.type,
        conversation: { kind: 'direct', members: [ctx.uids.of(me!), ctx.uids.of(counterpart)] },
      };
    } else {
      chat.chat = { id: chat.id, type: chat.type, conversation: { kind: 'group', guid: ctx.guids.of(chat.id) } };
      ctx.idMap.add('groups', chat.id, ctx.guids.of(chat.id));
    }
  }
  const byId = new Map([...chats].map(([key, c]) => [key, c.chat!]));
  const uidOf = (id: string | undefined) => (id === undefined ? undefined : ctx.uids.of(id));
  const list = [...chats.values()];

  return plansOf({
    users: [people.input()],
    groups: [
      listInput(
        'telegram:chats',
        list.map((c) => ({
          file: c.where,
          line: c.line,
          skip: c.chat!.conversation.kind === 'direct' ? SKIP.direct : undefined,
          value: groupRecord({
            guid: ctx.guids.of(c.id),
            name: c.name,
            fallbackName: c.id,
            type: PUBLIC_TYPES.has(c.type) ? 'public' : 'private',
            // Who created the group (its service message), else the first to write in it.
            owner: uidOf(groupOwner(c.creator, [], [...c.senders.keys()])),
            metadata: { telegramType: c.type, telegramId: c.id },
          }),
        })),
      ),
    ],
    members: [
      listInput(
        'telegram:members-from-messages',
        list
          .filter((c) => c.chat!.conversation.kind === 'group')
          .flatMap((c) => {
            const ids = [...new Set([...(c.creator ? [c.creator] : []), ...c.senders.keys()])];
            return ids.map((id) => ({
              file: c.where,
              line: c.senders.get(id) ?? c.line,
              value: memberRecord({
                guid: ctx.guids.of(c.id),
                uid: ctx.uids.of(id),
                scope: id === c.creator ? 'admin' : 'participant',
              }),
            }));
          }),
      ),
    ],
    messages: rels.map((rel) =>
      fileInput({
        ctx,
        rel,
        display: `telegram:${rel}`,
        descend: DESCEND,
        reportProblems: true,
        accept: (path) => placeOf(path)?.field === 'messages',
        map: (m, _line, path) => messageItems(mapTelegramMessage(m, byId.get(`${rel}#${placeOf(path)!.chat}`)!, ctx)),
      }),
    ),
  });
}

/** The pre-pass over one result.json: its chats (keyed `<file>#<chat>`), people and message ids. */
async function seeChats(
  ctx: PresetContext,
  rel: string,
  people: People,
  chats: Map<string, ChatEntry>,
  state: { self?: string },
): Promise<void> {
  const where = ctx.tree.where(rel);
  const chatAt = (key: string, line: number) => {
    let entry = chats.get(key);
    if (entry === undefined)
      chats.set(key, (entry = { id: '', type: 'private_group', line, senders: new Map(), where }));
    return entry;
  };
  for await (const { value, line, path } of objectsInAny(ctx, rel)) {
    if (path.length === 1 && path[0] === 'personal_information' && typeof value === 'object' && value !== null) {
      const info = value as Record<string, unknown>;
      state.self = info.user_id !== undefined ? `user${String(info.user_id)}` : undefined;
      if (state.self !== undefined)
        people.see(
          state.self,
          { name: [str(info.first_name), str(info.last_name)].filter(Boolean).join(' ') || str(info.username) },
          where,
          line,
        );
      continue;
    }
    const place = placeOf(path);
    if (place === undefined) continue;
    const chat = chatAt(`${rel}#${place.chat}`, line);
    if (place.field === 'id') chat.id = String(value);
    else if (place.field === 'name') chat.name = str(value);
    else if (place.field === 'type') chat.type = str(value) ?? chat.type;
    else if (place.field === 'messages' && typeof value === 'object' && value !== null) {
      const m = value as Record<string, unknown>;
      const pseudo: TelegramChat = { id: chat.id, type: chat.type, conversation: { kind: 'group', guid: '' } };
      if (m.type === 'service' && CREATE_ACTIONS.has(str(m.action) ?? '') && str(m.actor_id)) {
        chat.creator ??= str(m.actor_id);
        people.see(str(m.actor_id)!, { name: str(m.actor) }, where, line);
      }
      const mapped = mapTelegramMessage(m, pseudo, ctx);
      if (mapped.skip !== undefined) continue;
      const sender = telegramSender(m, chat.type);
      if (sender.system) people.useSystem(where, line);
      else if (sender.id !== undefined) {
        people.see(sender.id, { name: sender.name }, where, line);
        if (m.type !== 'service' && !chat.senders.has(sender.id)) chat.senders.set(sender.id, line);
      }
      addMessageIds(ctx.idMap, `${chat.id}-${String(m.id)}`, mapped);
    }
  }
}

/** Pre-pass pieces of any kind (chat fields are strings and numbers, not only objects). */
async function* objectsInAny(
  ctx: PresetContext,
  rel: string,
): AsyncGenerator<{ value: unknown; line: number; path: JsonPath }> {
  for await (const piece of pieces(ctx, rel, DESCEND)) {
    if (piece.ok) yield piece;
    if (ctx.idMap.needsFlush) await ctx.idMap.flush();
  }
}
