/**
 * Mattermost bulk export (`mmctl export create`): one JSON Lines file, its first line
 * `{"type": "version"}`, then team, channel, user (with their team and channel memberships), post
 * (replies and reactions inside), direct_channel, direct_post and emoji lines; with `--attachments`
 * a zip holding the file and a `data/` folder of the posts' files. The file is found by its first
 * line, not its name. One pre-pass learns users, channels and direct channels; then each entity's
 * input reads the file again, line by line.
 */
import { InputError } from '../../errors.js';
import { IdIndex, ID_NEW } from '../../rules/index.js';
import type { JsonObject } from '../../entities/types.js';
import type { EntityPlan } from '../../sources/plan.js';
import type { PresetContext } from '../shared/context.js';
import { listInput, objectsIn, pieces, plansOf } from '../shared/inputs.js';
import { isObject } from '../shared/items.js';
import { str } from '../shared/message-parts.js';
import { addMessageIds } from '../shared/message-record.js';
import { People } from '../shared/people.js';
import {
  channelKey,
  directKey,
  directMembers,
  mapMattermostPost,
  postContent,
  postId,
  postMoment,
  scopeOf,
  type MattermostPlace,
} from './map.js';
import { mattermostInputs, type Known } from './inputs.js';

const CANDIDATE = /\.(jsonl|ndjson|json)$/i;

export async function planMattermost(ctx: PresetContext): Promise<EntityPlan[]> {
  const files: string[] = [];
  for (const rel of ctx.tree.files.filter((f) => CANDIDATE.test(f) || ctx.tree.kind === 'file'))
    if (await startsWithVersion(ctx, rel)) files.push(rel);
  if (files.length === 0)
    throw new InputError('INPUT_NOT_PRESET', 'not a Mattermost bulk export: no JSONL file starts with a version line', {
      hint: 'export with `mmctl export create --attachments` and download it with `mmctl export download`',
    });

  const people = new People(ctx);
  const known: Known = {
    channels: new Map(),
    directs: new Map(),
    teams: new Map(),
    bots: new Set(),
    usernames: new Set(),
    sameMoment: new Map(),
  };
  // Ids, not strings, of every post's moment: a moment met twice is remembered with its first content.
  const moments = new IdIndex(1024, { content: true });
  const sawMoment = (place: MattermostPlace, post: JsonObject) => {
    const moment = postMoment(place, post);
    if (moments.add(moment, 0, 0, postContent(post)) !== ID_NEW && !known.sameMoment.has(moment))
      known.sameMoment.set(moment, moments.contentAt(moments.lastSlot));
  };
  const authors = new Map<string, { file: string; line: number }>();
  const sawAuthor = (user: unknown, file: string, line: number) => {
    const name = str(user);
    if (name !== undefined && !authors.has(name)) authors.set(name, { file, line });
  };
  const channelAt = (team: string, name: string, file: string, line: number) => {
    const key = channelKey(team, name);
    if (!known.channels.has(key)) known.channels.set(key, { key, team, name, file, line, declared: false });
    return known.channels.get(key)!;
  };
  const directAt = (members: string[], file: string, line: number) => {
    const key = directKey(members);
    if (!known.directs.has(key)) known.directs.set(key, { key, members, file, line, declared: false });
    return known.directs.get(key)!;
  };

  for (const rel of files) {
    const file = ctx.tree.where(rel);
    for await (const { value, line } of objectsIn(ctx, rel, 'lines')) {
      const type = str(value.type);
      const body = type === undefined ? undefined : value[type];
      if (!isObject(body)) continue;
      if (type === 'team' && str(body.name)) known.teams.set(str(body.name)!, str(body.display_name));
      else if (type === 'channel' && str(body.team) && str(body.name)) {
        const c = channelAt(str(body.team)!, str(body.name)!, file, line);
        Object.assign(c, { declared: true, file, line });
      } else if (type === 'user' && str(body.username)) {
        const username = str(body.username)!;
        const full = [str(body.first_name), str(body.last_name)].filter(Boolean).join(' ');
        people.list(username, full || str(body.nickname) || username);
        known.usernames.add(username.toLowerCase());
        for (const team of Array.isArray(body.teams) ? body.teams.filter(isObject) : [])
          for (const ch of Array.isArray(team.channels) ? team.channels.filter(isObject) : [])
            if (str(team.name) && str(ch.name)) {
              const c = channelAt(str(team.name)!, str(ch.name)!, file, line);
              c.firstMember ??= username;
              if (scopeOf(ch.roles, undefined, undefined) === 'admin') c.firstAdmin ??= username;
            }
      } else if (type === 'bot' && str(body.username)) {
        known.bots.add(str(body.username)!);
        known.usernames.add(str(body.username)!.toLowerCase());
        if (ctx.options.includeBots) people.list(str(body.username)!);
        else people.listSkipped(str(body.username)!);
      } else if (type === 'direct_channel') {
        const members = directMembers(body);
        if (members.length > 0) Object.assign(directAt(members, file, line), { declared: true, file, line });
        for (const m of members) sawAuthor(m, file, line);
      } else if (type === 'post' || type === 'direct_post') {
        let place: MattermostPlace;
        if (type === 'post') {
          if (!str(body.team) || !str(body.channel)) continue;
          const c = channelAt(str(body.team)!, str(body.channel)!, file, line);
          place = { key: c.key, conversation: { kind: 'group', guid: '' } };
        } else {
          const members = directMembers(body);
          if (members.length === 0) continue;
          for (const m of members) sawAuthor(m, file, line);
          place = { key: directAt(members, file, line).key, conversation: { kind: 'group', guid: '' } };
        }
        const replies = Array.isArray(body.replies) ? body.replies.filter(isObject) : [];
        const posts = [body, ...replies];
        for (const post of posts) sawMoment(place, post);
        const mapped = mapMattermostPost(body, place, known, ctx);
        for (let i = 0; i < posts.length; i++) {
          sawAuthor(posts[i].user, file, line);
          addMessageIds(ctx.idMap, postId(place, posts[i], known.sameMoment), mapped[i]);
        }
      }
    }
  }
  // Authors and direct members the users lines lack (deleted accounts, bots without a profile).
  for (const [name, at] of authors)
    if (!known.bots.has(name) || ctx.options.includeBots) people.see(name, {}, at.file, at.line);

  for (const c of known.channels.values()) {
    c.conversation = { kind: 'group', guid: ctx.guids.of(c.key) };
    ctx.idMap.add('groups', c.key, ctx.guids.of(c.key));
  }
  for (const d of known.directs.values()) {
    if (d.members.length <= 2) {
      const [a, b] = d.members;
      d.conversation = { kind: 'direct', members: [ctx.uids.of(a), ctx.uids.of(b ?? a)] };
    } else {
      d.conversation = { kind: 'group', guid: ctx.guids.of(d.key) };
      ctx.idMap.add('groups', d.key, ctx.guids.of(d.key));
    }
  }

  const inputs = mattermostInputs(ctx, files, known);
  return plansOf({
    users: [...inputs.users, people.input()],
    groups: [...inputs.groups, listInput('mattermost:channels-from-references', inputs.referencedGroups)],
    members: [...inputs.members, listInput('mattermost:group-messages-members', inputs.referencedMembers)],
    messages: inputs.messages,
  });
}

/** Whether the file's first line is `{"type": "version", ...}` (unreadable files are not exports). */
async function startsWithVersion(ctx: PresetContext, rel: string): Promise<boolean> {
  try {
    for await (const piece of pieces(ctx, rel, 'lines')) {
      return piece.ok && isObject(piece.value) && piece.value.type === 'version';
    }
  } catch {
    // An unreadable file is no export.
  }
  return false;
}
