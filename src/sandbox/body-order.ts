/**
 * Record keys of `{"<entity>": {...}}` in the order the body lists them.
 *
 * Why not `Object.keys`: JavaScript lists integer-like keys first and in numeric order, and muids
 * are often numeric ("3117" in the vendor's own example). The service stores records in body order,
 * and that order decides which records a mid-request 500 leaves stored, so it must be kept.
 *
 * Runs only on text `JSON.parse` already accepted, so it tracks structure and never validates.
 */
export function recordKeysInBodyOrder(text: string, entity: string): string[] | undefined {
  const stack: { object: boolean; key?: string }[] = [];
  let expectKey = false;
  let inMap = false;
  let keys: string[] | undefined;

  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        stack[stack.length - 1].key = key;
        if (inMap && stack.length === 2) keys!.push(key);
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      const top = stack[stack.length - 1];
      // The map is the object value of the top-level key named after the entity. JSON.parse keeps
      // the last of duplicate top-level keys, so a later occurrence starts the list over.
      if (c === '{' && stack.length === 1 && top.object && top.key === entity) {
        inMap = true;
        keys = [];
      }
      stack.push({ object: c === '{' });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
      if (stack.length === 1) inMap = false;
    } else if (c === ',') {
      expectKey = stack[stack.length - 1]?.object ?? false;
    }
  }
  return keys && [...new Set(keys)];
}

/** Index of the closing quote of the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}
