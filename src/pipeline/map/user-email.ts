/**
 * Where a user's e-mail is, for the e-mail lines of a `userMap`: the e-mail a user map line names is
 * the one the users source's mapping produces (`metadata.email` from an `email_address` column, say),
 * wherever the mapping puts it, so a config `init` wrote and a map by e-mail work together.
 */
import type { JsonObject, SourceRecord } from '../../entities/types.js';
import { getPath } from './object-paths.js';

/** A column or field name that says e-mail: `email`, `e-mail`, `mail`, `email_address`, `workEmail`. */
const EMAIL_NAME = /^(?:mail|[a-z0-9]*email(?:address)?)$/;
const isEmailName = (name: string): boolean => EMAIL_NAME.test(name.toLowerCase().replace(/[\s_.-]+/g, ''));

/** Where the e-mail is read, in the order tried: fields of the user as mapped, then of the record as read. */
export interface EmailPlaces {
  /** Dotted paths in the mapped payload. */
  mapped: string[][];
  /** Dotted paths in the source record (a column not sent). */
  read: string[][];
  /** A preset's own e-mail of the user (Slack `profile.email`, Sendbird `email`). */
  preset: boolean;
  /** Where the e-mails were looked for, for messages. */
  described: string;
  /** Named by `userEmailField`, not found. */
  configured: boolean;
}

/**
 * The places of a users source's e-mail. `userEmailField` names one: a field of the user as sent
 * (after `map`), else a column of the export as read. Unset, they are found: a preset's e-mail,
 * then every `map` target whose name or column says e-mail, then `metadata.email`, then an
 * `email` column as read.
 */
export function emailPlaces(
  configured: string | undefined,
  map: Readonly<Record<string, string>> = {},
  preset?: string,
): EmailPlaces {
  const split = (path: string) => path.split('.');
  if (configured !== undefined) {
    const path = split(configured);
    return { mapped: [path], read: [path], preset: false, described: configured, configured: true };
  }
  const targets = Object.entries(map)
    .filter(([target, column]) => isEmailName(target.split('.').at(-1) ?? '') || isEmailName(column))
    .map(([target]) => target);
  const mapped = [...new Set([...targets, 'metadata.email'])];
  return {
    mapped: mapped.map(split),
    read: [['email']],
    preset: true,
    described: [...(preset === undefined ? [] : [`the ${preset} export's own`]), ...mapped, 'email'].join(', '),
    configured: false,
  };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** The user's e-mail at the first of the places that holds one. */
export function emailOf(places: EmailPlaces, item: SourceRecord, payload: JsonObject): string | undefined {
  if (places.preset && item.email !== undefined) return text(item.email);
  for (const path of places.mapped) {
    const found = text(getPath(payload, path));
    if (found !== undefined) return found;
  }
  for (const path of places.read) {
    const found = text(getPath(item.value, path));
    if (found !== undefined) return found;
  }
  return undefined;
}
