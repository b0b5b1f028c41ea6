import type { ServiceIdLookup } from '../verify/read-service.js';

/** Placeholder until the import's id log lands: no log, so reads without muid cannot be matched. */
export async function loadIdLog(_checkpoint: string): Promise<ServiceIdLookup | undefined> {
  return undefined;
}
