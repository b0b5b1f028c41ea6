/**
 * `sandbox --seed-users <file>`: the users an app has before the migration, for a user-map rehearsal.
 * Read by the one read layer (CSV, JSON array or NDJSON, gzip too); each row needs a `uid`, or a `to`,
 * so the user map itself seeds the users it points at.
 */
import type { JsonObject } from '../entities/types.js';
import { InputError } from '../errors.js';
import { readSourceFile, resolveSourceFiles } from '../sources/index.js';

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

export async function readSeedUsers(file: string, cwd: string): Promise<JsonObject[]> {
  const [resolved] = await resolveSourceFiles({ path: file }, cwd);
  const users: JsonObject[] = [];
  for await (const item of readSourceFile(resolved)) {
    if (item.kind === 'problem') {
      if (item.rule === 'input.empty-file') continue;
      throw new InputError('SANDBOX_SEED_USERS', `--seed-users: ${item.message}`, {
        location: { file: item.file, line: item.line },
      });
    }
    const { from: _from, to, ...fields } = item.value;
    const uid = text(fields.uid) ?? text(to);
    if (uid === undefined) {
      throw new InputError('SANDBOX_SEED_USERS', '--seed-users: each user needs a "uid" (or "to", as in a user map)', {
        location: { file: item.file, line: item.line, field: 'uid' },
      });
    }
    users.push({ ...fields, uid, name: text(fields.name) ?? uid });
  }
  return users;
}
