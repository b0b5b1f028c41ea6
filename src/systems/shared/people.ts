/**
 * Users the messages (and channel lists) refer to but the users file lacks: found in the pre-pass,
 * kept as one small entry per user (name, avatar, where first seen), then created by their own
 * input so every sender, receiver, owner and member exists before the messages that need them.
 * The system user joins them when an admin/system/service message is sent.
 */
import type { SourceItem } from '../../entities/types.js';
import type { RecordInput } from '../../sources/plan.js';
import type { PresetContext } from './context.js';
import { recordItem } from './items.js';
import { userRecord } from './records.js';

export interface SeenPerson {
  name?: string;
  avatar?: string;
  isBot?: boolean;
  /** Anything else the messages tell of the user, for metadata (kept small). */
  metadata?: Record<string, unknown>;
}

interface Entry {
  person: SeenPerson;
  file: string;
  line: number;
}

/** What one file's pre-pass saw of people: each person's first sighting (line), names filled from later ones. */
export interface SeenInFile {
  seen: Array<[sourceId: string, person: SeenPerson, line: number]>;
  /** The line of the file's first admin/system message. */
  system?: number;
}

/**
 * The sightings of one file, summed up as People keeps them (first sighting, later ones only fill the
 * name and avatar), so a pre-pass fact kept between runs (prepass-cache.ts) tells People the same.
 */
export class FileSightings {
  private readonly byId = new Map<string, { person: SeenPerson; line: number }>();
  private system: number | undefined;

  see(sourceId: string, person: SeenPerson, line: number): void {
    const entry = this.byId.get(sourceId);
    if (entry === undefined) this.byId.set(sourceId, { person: { ...person }, line });
    else {
      entry.person.name ??= person.name;
      entry.person.avatar ??= person.avatar;
    }
  }

  useSystem(line: number): void {
    this.system ??= line;
  }

  facts(): SeenInFile {
    const seen = [...this.byId].map(([id, { person, line }]): [string, SeenPerson, number] => [id, person, line]);
    return this.system === undefined ? { seen } : { seen, system: this.system };
  }
}

export class People {
  /** Source ids the users file holds. */
  private readonly listed = new Set<string>();
  /** Service uids of every user that will exist (listed or found), for the system user's check. */
  private readonly uids = new Set<string>();
  private readonly found = new Map<string, Entry>();
  private systemFile: { file: string; line: number } | undefined;

  constructor(private readonly ctx: PresetContext) {}

  /** A user of the users file; written to the id map. Returns its uid. */
  list(sourceId: string, name?: string): string {
    const uid = this.ctx.uids.of(sourceId);
    if (name !== undefined && name.trim() !== '') this.ctx.names.set(sourceId, name);
    this.listed.add(sourceId);
    this.uids.add(uid);
    this.ctx.idMap.add('users', sourceId, uid);
    return uid;
  }

  /** A user of the users file that is not imported (a bot with includeBots off): never created from messages either. */
  listSkipped(sourceId: string): void {
    this.listed.add(sourceId);
  }

  isListed(sourceId: string): boolean {
    return this.listed.has(sourceId);
  }

  /** A user some record needs; created unless listed. Later sightings only fill what is missing. */
  see(sourceId: string, person: SeenPerson, file: string, line: number): string {
    const uid = this.ctx.uids.of(sourceId);
    if (this.listed.has(sourceId)) return uid;
    if (person.name !== undefined && !this.ctx.names.has(sourceId)) this.ctx.names.set(sourceId, person.name);
    const entry = this.found.get(sourceId);
    if (entry === undefined) {
      this.found.set(sourceId, { person: { ...person }, file, line });
      this.uids.add(uid);
      this.ctx.idMap.add('users', sourceId, uid);
    } else {
      entry.person.name ??= person.name;
      entry.person.avatar ??= person.avatar;
    }
    return uid;
  }

  /** A file's sightings, as if seen one by one (`file` as records name it). */
  apply(facts: SeenInFile, file: string): void {
    for (const [sourceId, person, line] of facts.seen) this.see(sourceId, person, file, line);
    if (facts.system !== undefined) this.useSystem(file, facts.system);
  }

  /** The system user sends a message; remembered so it is created (unless a real user has its uid). */
  useSystem(file: string, line: number): string {
    this.systemFile ??= { file, line };
    return this.ctx.options.systemUser;
  }

  get foundCount(): number {
    return this.found.size;
  }

  /** The input creating the found users (first-seen order) and the system user. */
  input(): RecordInput {
    const ctx = this.ctx;
    const found = [...this.found];
    const system =
      this.systemFile !== undefined && !this.uids.has(ctx.options.systemUser) ? this.systemFile : undefined;
    return {
      display: `${ctx.preset}:users-from-messages`,
      async *read(): AsyncGenerator<SourceItem> {
        let ordinal = 0;
        for (const [sourceId, { person, file, line }] of found) {
          const value = userRecord({
            uid: ctx.uids.of(sourceId),
            name: person.name,
            fallbackName: sourceId,
            avatar: person.avatar,
            metadata: { ...person.metadata, isBot: person.isBot || undefined, sourceId, from: 'messages' },
          });
          yield recordItem(value, file, line, ordinal++);
        }
        if (system !== undefined) {
          const value = userRecord({
            uid: ctx.options.systemUser,
            fallbackName: 'System',
            metadata: { from: 'preset', role: 'system' },
          });
          yield recordItem(value, system.file, system.line, ordinal++);
        }
      },
    };
  }
}
