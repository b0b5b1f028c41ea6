/**
 * What one chat system's folder gives (`<name>/index.ts`, listed by ../registry.ts): how its files are
 * recognised, its preset, its live source when it has one, and its media's quirks. Loading a system
 * loads its recogniser alone; the preset and the source are loaded when a run needs them.
 */
import type { ExpiringLinks } from '../../media/expiring-links.js';
import type { ExpiringHost } from '../../media/host-rules.js';
import type { EntityPlan } from '../../sources/plan.js';
import type { Recognizer } from '../detect/recognize.js';
import type { ExportTree } from './export-tree.js';
import type { PresetContext } from './context.js';
import type { LiveSource } from './pull-types.js';

/** A preset: the export -> the four entities' plans. */
export type Planner = (ctx: PresetContext) => Promise<EntityPlan[]>;

export interface System {
  /** Which of an export's files are this system's (init). */
  recognize: Recognizer;
  preset(): Promise<Planner>;
  /** The live source `pull` reads; present exactly when the registry says `live`. */
  source?(): Promise<LiveSource>;
  /**
   * What `init` gives the preset as `from` once it recognised `files` of the export at `fromPath`;
   * without it, the export as it is.
   */
  presetFrom?(tree: ExportTree, fromPath: string, files: readonly string[]): string;
  /** Hosts of its attachment links that stop working with it or after a while: validate warns of them. */
  expiringHosts?: readonly ExpiringHost[];
  /** Attachment links its pull marks that expire, and how to have them signed again. */
  expiringLinks?: ExpiringLinks;
}
