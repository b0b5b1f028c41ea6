/**
 * The eager part of the fake world: users, channels and members, drawn in order from one seeded
 * stream (their number is small next to the messages', which fake-world.ts makes on demand).
 */
import { mulberry32 } from '../../../dist/sandbox/fault-plan.js';
import type { FakeChannel, FakeMember, FakeUser } from './types.js';
import { FIRST_NAMES, LAST_NAMES, TOPICS } from './fake-words.js';

export const DAY_MS = 86_400_000;

/** `user-0001`: plain, unique and sortable as text while the count fits the width. */
export function slug(prefix: string, n: number, width: number): string {
  return `${prefix}-${String(n).padStart(width, '0')}`;
}

export const idWidth = (count: number): number => Math.max(4, String(count).length);

export function makeUsers(count: number, seed: number, nowMs: number): FakeUser[] {
  const random = mulberry32(seed ^ 0x5eed0001);
  const width = idWidth(count);
  const taken = new Set<string>();
  const users: FakeUser[] = [];
  for (let i = 1; i <= count; i++) {
    const first = FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)];
    const last = LAST_NAMES[Math.floor(random() * LAST_NAMES.length)];
    let name = `${first}.${last}`;
    if (taken.has(name)) name = `${name}${i}`;
    taken.add(name);
    const id = slug('user', i, width);
    // Created 35 to 60 days before now, before any channel; a third changed since.
    const createdAtMs = nowMs - 60 * DAY_MS + Math.floor(random() * 25 * DAY_MS);
    const changed = random() < 0.33;
    const updatedAtMs = changed ? createdAtMs + Math.floor(random() * 30 * DAY_MS) : createdAtMs;
    const user: FakeUser = { id, name, createdAtMs, updatedAtMs };
    if (random() < 0.7) user.avatarUrl = `/__fake/media/avatar-${id}`;
    // The first user stays active: tests may post as it.
    if (i > 1 && random() < 0.04) user.deactivated = true;
    if (i === count && count >= 10) {
      user.bot = true;
      user.name = 'deploy-bot';
    }
    users.push(user);
  }
  return users;
}

type Kind = FakeChannel['kind'];

/** Every kind appears once the world has four channels; then public ones are the most common. */
function kindOf(index: number, roll: number, users: number): Kind {
  const order: Kind[] = ['public', 'private', 'direct', 'group-direct'];
  let kind: Kind =
    index < order.length
      ? order[index]
      : roll < 0.4
        ? 'public'
        : roll < 0.6
          ? 'private'
          : roll < 0.85
            ? 'direct'
            : 'group-direct';
  if (kind === 'group-direct' && users < 3) kind = 'direct';
  if (kind === 'direct' && users < 2) kind = 'private';
  return kind;
}

/** `count` distinct user indexes from `[0, users)`, `first` among them. */
function pickMembers(random: () => number, users: number, count: number, first: number): number[] {
  const picked = new Set<number>([first]);
  if (count >= users) return [first, ...Array.from({ length: users }, (_, i) => i).filter((i) => i !== first)];
  while (picked.size < count) picked.add(Math.floor(random() * users));
  return [...picked];
}

function memberCount(kind: Kind, index: number, random: () => number, users: number): number {
  if (index === 0 && kind === 'public') return users; // #general: everyone
  if (kind === 'direct') return 2;
  if (kind === 'group-direct') return Math.min(users, 3 + Math.floor(random() * 6));
  if (kind === 'private') return Math.min(users, 2 + Math.floor(random() * 9));
  return Math.min(users, 3 + Math.floor(random() * Math.min(users, 30)));
}

export function makeChannels(count: number, users: readonly FakeUser[], seed: number, nowMs: number): FakeChannel[] {
  const random = mulberry32(seed ^ 0x5eed0002);
  const width = idWidth(count);
  const channels: FakeChannel[] = [];
  const names = new Set<string>();
  for (let i = 0; i < count; i++) {
    const kind = kindOf(i, random(), users.length);
    const creator = Math.floor(random() * users.length);
    const size = memberCount(kind, i, random, users.length);
    const createdAtMs = nowMs - 34 * DAY_MS + Math.floor(random() * 3 * DAY_MS);
    const picked = pickMembers(random, users.length, size, creator);
    const members: FakeMember[] = picked.map((u, k) => ({
      userId: users[u].id,
      joinedAtMs: createdAtMs + k * 1000,
      role: k === 0 ? 'admin' : 'member',
    }));
    let name: string;
    if (kind === 'direct' || kind === 'group-direct') {
      name = picked.map((u) => users[u].name).join(',');
    } else {
      name = i < TOPICS.length ? TOPICS[i] : `${TOPICS[i % TOPICS.length]}-${Math.floor(i / TOPICS.length)}`;
    }
    if (names.has(name)) name = `${name}-${i}`;
    names.add(name);
    const changed = random() < 0.25;
    const updatedAtMs = changed ? createdAtMs + Math.floor(random() * 20 * DAY_MS) : createdAtMs;
    channels.push({
      id: slug('channel', i + 1, width),
      name,
      kind,
      createdAtMs,
      updatedAtMs,
      creatorId: users[creator].id,
      members,
    });
  }
  return channels;
}
