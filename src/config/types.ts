import type { EntityName } from '../entities/types.js';

export type SourceFormat = 'csv' | 'json' | 'ndjson';

/** How an export marks deleted messages: soft-deleted (a time) or permanently deleted (a value). */
export interface DeletionMarkers {
  /** A field holding a deletion time: the message is soft-deleted. Default `deletedAt`. */
  softField: string;
  /** A field whose value `permanentValue` means permanently deleted. Default `deleted`. */
  permanentField: string;
  permanentValue: string;
}

/** One entity's source: `path` is a file, a list of files or a glob. */
export interface SourceConfig {
  path: string | string[];
  format?: SourceFormat;
  /** target (API field, dotted) -> source field (dotted). */
  map?: Record<string, string>;
  deletion?: Partial<DeletionMarkers>;
  /** API field (dotted) -> the value a record takes when it has none (`{"receiverType": "group"}`). */
  values?: Record<string, string | number | boolean>;
}

export type SourcesConfig = Partial<Record<EntityName, SourceConfig>>;
