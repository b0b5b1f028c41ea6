/**
 * Each system's parts, loaded from its folder by the name the registry gives it (`<name>/index.ts`
 * exports `system`): a new system needs no line here. test/systems.test.mjs holds every folder to it.
 */
import { PRESET_NAMES, type SourceName, type SystemName } from './registry.js';
import type { ExpiringHost } from '../media/host-rules.js';
import type { LiveSource } from './shared/pull-types.js';
import type { System } from './shared/system.js';

export async function loadSystem(name: SystemName): Promise<System> {
  return ((await import(`./${name}/index.js`)) as { system: System }).system;
}

/** Every system, in the registry's order. */
export async function loadSystems(): Promise<Array<[SystemName, System]>> {
  return Promise.all(PRESET_NAMES.map(async (name) => [name, await loadSystem(name)] as [SystemName, System]));
}

/** A live source's module, loaded only when its pull runs. */
export async function loadSource(name: SourceName): Promise<LiveSource> {
  const { source } = await loadSystem(name);
  if (source === undefined) throw new Error(`${name} has no live source`);
  return source();
}

/** Every system's expiring attachment hosts, for validate's warning. */
export async function expiringHosts(): Promise<ExpiringHost[]> {
  return (await loadSystems()).flatMap(([, system]) => system.expiringHosts ?? []);
}
