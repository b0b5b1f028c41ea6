/**
 * Slack workspace export (folder or .zip): users.json, channels.json (public), groups.json
 * (private), mpims.json (multi-person DMs), dms.json (DMs), and one folder per conversation of
 * per-day files (`general/2016-01-14.json`, DMs' folders named by their id). Index files are small
 * and read as they are needed; day files are read one at a time, record by record.
 */
import type { RecordInput } from '../../sources/plan.js';
import type { EntityPlan } from '../../sources/plan.js';
import { byCodeUnit } from '../shared/export-tree.js';
import type { Conversation, PresetContext } from '../shared/context.js';
import { fileInput, objectsIn, plansOf, TOP_ARRAY } from '../shared/inputs.js';
import { addMessageIds, messageItems } from '../shared/message-record.js';
import { FileSightings, People, type SeenInFile } from '../shared/people.js';
import { mapSlackMessage, slackTs, type SlackChannel } from './messages.js';
import {
  slackGroupInputs,
  slackMemberInputs,
  slackUserName,
  slackUsersInput,
  type IndexFile,
  type SlackConversation,
} from './indexes.js';
import { CONVERSATION_KINDS, USERS_FILE } from './layout.js';
import { findRoots, inRoot, LastCopy } from './roots.js';
import { str } from '../shared/message-parts.js';

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.json$/;

export async function planSlack(ctx: PresetContext): Promise<EntityPlan[]> {
  const roots = findRoots(ctx.tree.files);
  const has = new Set(ctx.tree.files);
  const people = new People(ctx);
  // Users and conversations listed by a later pull run too are read from their newest copy only.
  const lastUser = new LastCopy();
  const lastConversation = new LastCopy();

  // Users first: messages and member lists then only add who users.json lacks.
  const botUsers = new Set<string>();
  const usersFiles = roots
    .map((root, at) => ({ rel: inRoot(root, USERS_FILE), root: at }))
    .filter((u) => has.has(u.rel))
    .map((u) => ({ ...u, display: `slack:${roots.length > 1 ? u.rel : USERS_FILE}` }));
  for (const { rel, root: at } of usersFiles) {
    for await (const { value } of objectsIn(ctx, rel, TOP_ARRAY)) {
      const id = str(value.id);
      if (id === undefined) continue;
      lastUser.see(id, at);
      if (value.is_bot === true) botUsers.add(id);
      if (value.is_bot === true && !ctx.options.includeBots) people.listSkipped(id);
      else people.list(id, slackUserName(value));
    }
  }

  const conversations = new Map<string, SlackConversation>();
  const indexes: IndexFile[] = [];
  for (const [at, root] of roots.entries()) {
    for (const { file, becomes } of CONVERSATION_KINDS) {
      const index = { file, kind: becomes };
      const rel = inRoot(root, index.file);
      if (!has.has(rel)) continue;
      indexes.push({ ...index, rel, root: at, display: `slack:${roots.length > 1 ? rel : index.file}` });
      for await (const { value, line } of objectsIn(ctx, rel, TOP_ARRAY)) {
        const id = str(value.id);
        if (id === undefined) continue;
        lastConversation.see(id, at);
        const members = Array.isArray(value.members) ? value.members.map(String) : [];
        const folder = index.kind === 'direct' ? id : (str(value.name) ?? id);
        const where = ctx.tree.where(rel);
        for (const m of members) if (!(botUsers.has(m) && !ctx.options.includeBots)) people.see(m, {}, where, line);
        const creator = str(value.creator);
        if (creator !== undefined && index.kind !== 'direct') people.see(creator, {}, where, line);
        const direct = index.kind === 'direct' && members.length >= 1 && members.length <= 2;
        const known = conversations.get(folder);
        // A delta lists a DM with its new members only: the DM's two people are those first listed.
        const conversation: Conversation =
          direct && known?.conversation.kind === 'direct'
            ? known.conversation
            : direct
              ? { kind: 'direct', members: [ctx.uids.of(members[0]), ctx.uids.of(members[1] ?? members[0])] }
              : { kind: 'group', guid: ctx.guids.of(id) };
        if (!direct) ctx.idMap.add('groups', id, ctx.guids.of(id));
        // A DM with a bot that is not imported has nobody to receive its messages.
        const withSkippedBot = direct && !ctx.options.includeBots && members.some((m) => botUsers.has(m));
        conversations.set(folder, { sourceId: id, conversation, indexFile: index.file, withSkippedBot });
      }
    }
  }

  // Day files, oldest day first, then by folder: messages go out oldest first.
  const days = ctx.tree.files
    .flatMap((rel) => {
      const root = roots.find((r) => r === '' || rel.startsWith(`${r}/`));
      if (root === undefined) return [];
      const inside = root === '' ? rel : rel.slice(root.length + 1);
      return [{ rel, inside, parts: inside.split('/') }];
    })
    .filter(({ parts }) => parts.length === 2 && DAY_FILE.test(parts[1]))
    .sort((a, b) => byCodeUnit(a.parts[1], b.parts[1]) || byCodeUnit(a.parts[0], b.parts[0]));
  const orphans: string[] = [];
  const messageInputs: RecordInput[] = [];
  for (const day of days) {
    const folder = day.parts[0];
    let known = conversations.get(folder);
    if (known === undefined) {
      // A folder no index file lists: a private group named after it (the least exposure).
      known = { sourceId: folder, conversation: { kind: 'group', guid: ctx.guids.of(folder) }, indexFile: undefined };
      conversations.set(folder, known);
      orphans.push(folder);
      ctx.idMap.add('groups', folder, ctx.guids.of(folder));
    }
    const channel: SlackChannel = {
      sourceId: known.sourceId,
      conversation: known.conversation,
      botUsers,
      withSkippedBot: known.withSkippedBot === true,
    };
    // The day's senders depend on its conversation as the index files tell it (a bot, a DM's people).
    const dependsOn = { ...channel, botUsers: [...botUsers].sort() };
    const seen = await ctx.prepass.factsOf(ctx, day.rel, () => gatherDay(ctx, day.rel, channel), dependsOn);
    people.apply(seen, ctx.tree.where(day.rel));
    messageInputs.push(
      fileInput({
        ctx,
        rel: day.rel,
        display: `slack:${roots.length > 1 ? day.rel : day.inside}`,
        descend: TOP_ARRAY,
        reportProblems: true,
        map: (value) => messageItems(mapSlackMessage(value, channel, ctx)),
      }),
    );
  }

  const superseded = {
    user: (id: string, root: number) => lastUser.supersededAt(id, root),
    conversation: (id: string, root: number) => lastConversation.supersededAt(id, root),
  };
  return plansOf({
    users: [...usersFiles.map((u) => slackUsersInput(ctx, u, superseded.user)), people.input()],
    groups: slackGroupInputs(ctx, indexes, orphans, days, botUsers, superseded.conversation),
    members: slackMemberInputs(ctx, indexes, botUsers),
    messages: messageInputs,
  });
}

/** The senders of one day file, and its messages' id map lines (kept between runs: prepass-cache.ts). */
async function gatherDay(ctx: PresetContext, rel: string, channel: SlackChannel): Promise<SeenInFile> {
  const sightings = new FileSightings();
  for await (const { value, line } of objectsIn(ctx, rel, TOP_ARRAY)) {
    const mapped = mapSlackMessage(value, channel, ctx);
    if (mapped.skip !== undefined) continue;
    if (mapped.sender !== undefined) sightings.see(mapped.sender.sourceId, mapped.sender.person, line);
    addMessageIds(ctx.idMap, `${channel.sourceId}:${slackTs(value.ts)}`, mapped);
  }
  return sightings.facts();
}
