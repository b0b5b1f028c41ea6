/**
 * The four records in the API's own field names, so the pipeline's mapping is the identity.
 * Builders leave out what the export does not have, keep names and URLs within the service's
 * limits. Messages are built in message-record.ts.
 */
import type { JsonObject } from '../../entities/types.js';
import { clip, compact, fitMetadata, isHttpUrl, METADATA_BYTES } from './message-parts.js';

export interface UserInput {
  uid: string;
  name?: string;
  /** Shown as the name when the export has none. */
  fallbackName: string;
  avatar?: unknown;
  link?: unknown;
  createdAt?: number;
  lastActiveAt?: number;
  deactivatedAt?: number;
  metadata?: Record<string, unknown>;
}

export function userRecord(u: UserInput): JsonObject {
  const name = u.name !== undefined && u.name.trim() !== '' ? u.name : u.fallbackName;
  const record = compact({
    uid: u.uid,
    name: clip(name),
    avatar: isHttpUrl(u.avatar) ? (u.avatar as string) : undefined,
    link: isHttpUrl(u.link) ? (u.link as string) : undefined,
    createdAt: u.createdAt,
    lastActiveAt: u.lastActiveAt,
    deactivatedAt: u.deactivatedAt,
    metadata: u.metadata === undefined ? undefined : compact(u.metadata),
  });
  return fitMetadata(record, METADATA_BYTES);
}

export interface GroupInput {
  guid: string;
  name?: string;
  fallbackName: string;
  type: 'public' | 'private';
  owner?: string;
  icon?: unknown;
  createdAt?: number;
  metadata?: Record<string, unknown>;
  /** Kept as the group's tags (Sendbird's custom_type, Stream's channel type): apps filter groups by them. */
  tags?: ReadonlyArray<string | undefined>;
}

export function groupRecord(g: GroupInput): JsonObject {
  const name = g.name !== undefined && g.name.trim() !== '' ? g.name : g.fallbackName;
  const record = compact({
    guid: g.guid,
    name: clip(name),
    type: g.type,
    owner: g.owner,
    icon: isHttpUrl(g.icon) ? (g.icon as string) : undefined,
    createdAt: g.createdAt,
    metadata: g.metadata === undefined ? undefined : compact(g.metadata),
    tags: groupTags(g.tags),
  });
  return fitMetadata(record, METADATA_BYTES);
}

const MAX_TAGS = 25;
const MAX_TAG_CHARS = 100;

/** Distinct, non-empty tags within the service's limits (25 tags of 100 characters). */
function groupTags(tags: ReadonlyArray<string | undefined> | undefined): string[] | undefined {
  if (tags === undefined) return undefined;
  const kept = [...new Set(tags.filter((t): t is string => t !== undefined && t.trim() !== ''))];
  return kept.slice(0, MAX_TAGS).map((t) => clip(t, MAX_TAG_CHARS));
}

/**
 * A group's owner (a uid): the creator, else the first operator or admin, else the first member, as
 * the vendor's migration guides fall back; undefined when the source names nobody.
 */
export function groupOwner(
  creator: string | undefined,
  admins: readonly string[],
  members: readonly string[],
): string | undefined {
  return creator ?? admins[0] ?? members[0];
}

/**
 * A member's joinedAt, strictly after the group's createdAt as the service requires ("greater than",
 * ERR_IMPORT_INVALID_JOINEDAT). A source join at or before the creation (the creator joins in the same
 * second) becomes one second after it: the group keeps its real creation time, which verify compares,
 * and the join moves the least it can.
 */
export function joinedAfter(joinedAt: number | undefined, groupCreatedAt: number | undefined): number | undefined {
  if (joinedAt === undefined || groupCreatedAt === undefined) return joinedAt;
  return joinedAt > groupCreatedAt ? joinedAt : groupCreatedAt + 1;
}

export interface MemberInput {
  guid: string;
  uid: string;
  scope: 'admin' | 'moderator' | 'participant';
  isBanned?: boolean;
  joinedAt?: number;
}

export function memberRecord(m: MemberInput): JsonObject {
  const record: JsonObject = { guid: m.guid, uid: m.uid, scope: m.scope };
  if (m.isBanned) record.isBanned = true;
  if (m.joinedAt !== undefined) record.joinedAt = m.joinedAt;
  return record;
}
