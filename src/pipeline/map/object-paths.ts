import type { JsonObject } from '../../entities/types.js';

/**
 * Dotted-path access for the mapper. Source records are never changed: `fresh` holds the objects the
 * mapper made for this record, and any other object on a path is copied before it is written.
 */

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function getPath(root: JsonObject, path: readonly string[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (!isPlainObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** Walks to the parent of the path's last key, copying every shared object on the way. */
function ownParent(
  root: JsonObject,
  path: readonly string[],
  fresh: Set<object>,
  create: boolean,
): JsonObject | undefined {
  let parent = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    if (key === '__proto__') return undefined;
    let child = parent[key];
    if (child === undefined || child === null) {
      if (!create) return undefined;
      child = {};
    } else if (!isPlainObject(child)) {
      return undefined;
    } else if (!fresh.has(child)) {
      child = { ...child };
    } else {
      parent = child;
      continue;
    }
    fresh.add(child as object);
    parent[key] = child;
    parent = child as JsonObject;
  }
  return parent;
}

export function setPath(root: JsonObject, path: readonly string[], value: unknown, fresh: Set<object>): boolean {
  const last = path[path.length - 1];
  const parent = last === '__proto__' ? undefined : ownParent(root, path, fresh, true);
  if (parent === undefined) return false;
  parent[last] = value;
  return true;
}

/**
 * Removes the value at `path`, and the objects that removing it leaves empty (a CSV's `data.from`
 * mapped elsewhere must not send `data: {}`). A transient top-level name is blanked rather than
 * deleted: dropTransient rebuilds the object anyway.
 */
export function deletePath(
  root: JsonObject,
  path: readonly string[],
  fresh: Set<object>,
  transient: ReadonlySet<string>,
): void {
  let depth = path.length;
  if (depth > 1) {
    if (getPath(root, path) === undefined) return;
    const parent = ownParent(root, path, fresh, false);
    if (parent === undefined) return;
    delete parent[path[depth - 1]];
    // ownParent made every object on the path our own, so emptied ones can go
    while (--depth > 1 && Object.keys(getPath(root, path.slice(0, depth)) as JsonObject).length === 0) {
      delete (getPath(root, path.slice(0, depth - 1)) as JsonObject)[path[depth - 1]];
    }
    if (!isPlainObject(root[path[0]]) || Object.keys(root[path[0]] as JsonObject).length > 0) return;
  }
  const key = path[0];
  if (transient.has(key)) {
    if (root[key] !== undefined) root[key] = undefined;
  } else if (Object.hasOwn(root, key)) {
    delete root[key];
  }
}
