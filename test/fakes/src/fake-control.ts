/**
 * The fake's control routes (no credentials, no budget, no faults, not counted as source requests):
 * what a test does to the world while a pull runs, and what it reads to know what "every record once"
 * means. `/__fake/media/<id>` serves attachment and avatar bytes, as a public CDN would.
 */
import { FakeInputError, type GeneratedWorld } from './fake-world.js';
import type { FakeReply } from './types.js';

export interface FakeStats {
  /** Requests to the source's routes (not the control routes nor media), answered or not. */
  requests: number;
  rateLimited: number;
  unauthorized: number;
  byPath: Record<string, number>;
  byStatus: Record<string, number>;
  faults: { drop: number; spurious429: number; fail500Before: number; sourceError: number };
  media: number;
  /** Messages in the world now, generated and added. */
  messages: number;
}

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

function text(body: unknown, name: string, required = true): string | undefined {
  const value = field(body, name);
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') throw new FakeInputError(400, `${name} must be a non-empty string`);
  return value;
}

/** Counts per channel, so a test knows what a complete pull holds. */
export function describeWorld(world: GeneratedWorld): unknown {
  const channels = world.channels.map((c) => ({
    id: c.id,
    name: c.name,
    kind: c.kind,
    members: c.members.length,
    messages: world.messageCount(c.id),
  }));
  return {
    users: world.users.length,
    channels,
    members: channels.reduce((sum, c) => sum + c.members, 0),
    messages: world.totalMessages(),
    nowMs: world.nowMs,
  };
}

/** The answer to a control route, or undefined when the path is none of them. */
export function answerControl(
  method: string,
  pathname: string,
  body: unknown,
  world: GeneratedWorld,
  stats: () => FakeStats,
): FakeReply | undefined {
  try {
    const action = `${method} ${pathname.replace(/\/$/, '')}`;
    if (action === 'GET /__fake/stats') return { status: 200, body: stats() };
    if (action === 'GET /__fake/world') return { status: 200, body: describeWorld(world) };
    if (action === 'POST /__fake/messages') {
      const input = {
        channelId: text(body, 'channelId')!,
        senderId: text(body, 'senderId')!,
        text: text(body, 'text')!,
      };
      const parentId = text(body, 'parentId', false);
      return { status: 200, body: world.addMessage(parentId ? { ...input, parentId } : input) };
    }
    if (action === 'POST /__fake/users') {
      return { status: 200, body: world.addUser({ id: text(body, 'id', false), name: text(body, 'name')! }) };
    }
    if (action === 'POST /__fake/members') {
      return { status: 200, body: world.addMember(text(body, 'channelId')!, text(body, 'userId')!) };
    }
    if (method === 'DELETE' && pathname.startsWith('/__fake/channels/')) {
      return { status: 200, body: world.deleteChannel(decodeURIComponent(pathname.slice('/__fake/channels/'.length))) };
    }
    if (method === 'GET' && pathname.startsWith('/__fake/media/')) {
      const file = world.media(decodeURIComponent(pathname.slice('/__fake/media/'.length)));
      if (!file) return { status: 404, body: { error: 'no such media' } };
      return { status: 200, headers: { 'Content-Type': file.contentType }, body: file.bytes };
    }
    if (pathname.startsWith('/__fake/')) {
      const routes =
        'GET stats, GET world, GET media/<id>, POST messages, POST users, POST members, DELETE channels/<id>';
      return { status: 404, body: { error: `control routes: ${routes}` } };
    }
    return undefined;
  } catch (err) {
    if (err instanceof FakeInputError) return { status: err.status, body: { error: err.message } };
    throw err;
  }
}
