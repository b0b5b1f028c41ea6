/**
 * Stream (getstream.io): its import format and its channel export (see read.ts for the
 * layouts), one file or a folder/zip of them. Two sweeps before the run, both streaming: the first
 * learns the channels (and the member lists of `!members-` channels, which a v1 export writes after
 * the messages and a v2 export as member lines naming their channel) and the import file's
 * reactions; the second finds the users and channels the records need and writes the id map. Each
 * sweep's facts of a file are kept between runs (prepass.ts), so a run reads only new or changed files.
 */
import type { JsonObject, SourceItem } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import type { EntityPlan, RecordInput } from '../../sources/plan.js';
import type { PresetContext } from '../shared/context.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { str } from '../shared/message-parts.js';
import { messageItems } from '../shared/message-record.js';
import { People } from '../shared/people.js';
import { listInput, plansOf } from '../shared/inputs.js';
import { problemItem, recordItem } from '../shared/items.js';
import { groupRecord } from '../shared/records.js';
import {
  channelKey,
  mapStreamChannel,
  mapStreamMember,
  mapStreamMessage,
  mapStreamUser,
  type StreamChannel,
} from './map.js';
import { detectLayout } from '../shared/file-shape.js';
import {
  applyNeeds,
  applyOutline,
  channelFor,
  keyOf,
  needsDependOn,
  needsOf,
  outlineFile,
  reactionsMark,
  type FileOutline,
  type Known,
  type Placed,
} from './prepass.js';
import { streamEvents, type StreamKind, type StreamLayout } from './read.js';

const STREAM_FILE = /\.(json|jsonl|ndjson)$/i;
const DISTINCT_ID = '!members-';

export async function planStream(ctx: PresetContext): Promise<EntityPlan[]> {
  const files: Array<{ rel: string; layout: StreamLayout }> = [];
  for (const rel of ctx.tree.files.filter((f) => STREAM_FILE.test(f) || ctx.tree.kind === 'file')) {
    const layout = await detectLayout(ctx, rel);
    if (layout !== undefined) files.push({ rel, layout });
  }
  if (files.length === 0)
    throw new InputError('INPUT_NOT_PRESET', 'not a Stream export: no JSON or JSON Lines file found');

  const known: Known = { channels: new Map(), holders: new Map(), reactions: new Map(), missing: new Map() };
  const people = new People(ctx);
  // Member ids of each channel, for `!members-` channels: by v1 object (`rel#holder`), or by cid (v2 lines).
  const memberLists = { held: new Map<string, string[]>(), lined: new Map<string, string[]>() };
  // What each file holds, so a file gets inputs only for the entities it has (each input reads it once).
  const holds = new Map<string, Set<StreamKind | 'users'>>();
  const earliest = new Map<string, number>();
  const outlines = new Map<string, FileOutline>();

  // Sweep 1: channels, `!members-` member lists, reactions, the users file's users (prepass.ts).
  for (const { rel, layout } of files) {
    const outline = await ctx.prepass.factsOf(ctx, rel, () => outlineFile(ctx, rel, layout), undefined, 'outline');
    outlines.set(rel, outline);
    holds.set(rel, new Set(outline.kinds));
    applyOutline(ctx, rel, outline, known, people, memberLists);
  }
  const distinct = (key: string | undefined, list: string[]) => {
    const channel = known.channels.get(key ?? '');
    if (channel?.id.startsWith(DISTINCT_ID) && channel.distinctMembers === undefined) channel.distinctMembers = list;
  };
  for (const [holder, list] of memberLists.held) distinct(known.holders.get(holder), list);
  for (const [key, list] of memberLists.lined) distinct(key, list);
  // A distinct channel of exactly two people is their user-to-user conversation.
  for (const channel of known.channels.values()) {
    const m = channel.distinctMembers;
    if (m !== undefined && m.length === 2)
      channel.conversation = { kind: 'direct', members: [ctx.uids.of(m[0]), ctx.uids.of(m[1])] };
    else ctx.idMap.add('groups', channel.key, ctx.guids.of(channel.key));
  }

  // Sweep 2: who and what the records need; kept sightings hold while the reactions and channels they used do.
  const reactions = reactionsMark(known);
  for (const { rel, layout } of files) {
    const gather = () => needsOf(ctx, rel, layout, known);
    const dependsOn = needsDependOn(outlines.get(rel)!, known, reactions);
    const needs = await ctx.prepass.factsOf(ctx, rel, gather, dependsOn, 'needs');
    applyNeeds(ctx, rel, needs, known, people);
    if (needs.earliest !== null) earliest.set(rel, needs.earliest);
  }

  const per = (kind: StreamKind | 'users') =>
    files
      .filter(({ rel }) => holds.get(rel)!.has(kind))
      .map(({ rel, layout }) => eventInput(ctx, known, rel, layout, kind));
  // Messages go out oldest first: files by their first message, each in its own order.
  files.sort(
    (a, b) => (earliest.get(a.rel) ?? Infinity) - (earliest.get(b.rel) ?? Infinity) || byCodeUnit(a.rel, b.rel),
  );
  const users = [...per('users'), people.input()];
  const missing = [...known.missing].map(([key, where]) => {
    const channel = known.channels.get(key)!;
    return {
      ...where,
      value: groupRecord({
        guid: ctx.guids.of(key),
        fallbackName: channel.id,
        type: 'private',
        tags: [channel.type],
        metadata: { streamCid: key, streamType: channel.type, streamId: channel.id, from: 'messages' },
      }),
    };
  });
  const groups = [...per('channel'), listInput('stream:channels-from-messages', missing)];
  const members = per('member');
  return plansOf({ users, groups, members, messages: per('message') });
}

/** The channel of a member or message, when its records are read (sweep 2 made every one). */
function resolve(ctx: PresetContext, known: Known, rel: string, e: Placed, file: string): StreamChannel {
  return channelFor(ctx, known, keyOf(known.holders, rel, e), file, e.line);
}

/** One entity's records from one file; the users input also reports the file's unplaceable bad pieces. */
function eventInput(
  ctx: PresetContext,
  known: Known,
  rel: string,
  layout: StreamLayout,
  kind: StreamKind | 'users',
): RecordInput {
  const file = ctx.tree.where(rel);
  const input: RecordInput = {
    display: `stream:${rel}#${kind === 'users' ? 'users' : kind === 'channel' ? 'groups' : `${kind}s`}`,
    async *read({ signal }): AsyncGenerator<SourceItem> {
      let ordinal = 0;
      for await (const e of streamEvents(ctx, rel, layout, signal)) {
        if (e.kind === 'problem') {
          if ((e.about ?? 'users') === kind || e.piece.fatal) {
            yield problemItem(e.piece, file, e.piece.slot ? ordinal++ : undefined);
          }
          continue;
        }
        const mine = kind === 'users' ? e.kind === 'user' : e.kind === kind;
        if (!mine) continue;
        let produced: { value: JsonObject; skip?: string; more?: JsonObject[] };
        if (e.kind === 'user') produced = { value: mapStreamUser(e.value, ctx) };
        else {
          const channel = e.kind === 'channel' ? channelOf(known, e.value) : resolve(ctx, known, rel, e, file);
          produced =
            e.kind === 'channel'
              ? mapStreamChannel(e.value, channel, ctx)
              : e.kind === 'member'
                ? mapStreamMember(e.value, channel, ctx)
                : mapStreamMessage(e.value, channel, known.reactions.get(str(e.value.id) ?? ''), ctx);
        }
        for (const one of messageItems(produced)) yield recordItem(one.value, file, e.line, ordinal++, one.skip);
      }
    },
  };
  const disk = ctx.tree.diskPath(rel);
  if (disk !== undefined) input.path = disk;
  return input;
}

function channelOf(known: Known, c: JsonObject): StreamChannel {
  return known.channels.get(channelKey(str(c.type), str(c.id), c.member_ids) ?? str(c.cid) ?? '')!;
}
