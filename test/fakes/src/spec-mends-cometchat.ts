/**
 * CometChat's documents (test/vendor-specs/cometchat/) disagree in places with the vendor's own examples
 * and pages (the product spec's import-api.md and read-api.md, summed up in docs/api-contract.md and
 * docs/service-reads.md). Each mend below corrects one such place, in memory, and says why; nothing else
 * in the documents is relaxed.
 */

// biome-ignore lint/suspicious/noExplicitAny: the vendor's documents are generic JSON.
type Json = any;

const PLACEHOLDER = /^<[^>]+>(?:_member_<[^>]+>)?$/;

/** Mends `document` (`file` names which of the two) in place. */
export function mendCometChat(document: Json, file: string): void {
  if (file.endsWith('data-import-apis.json')) mendImport(document);
  else mendChat(document);
}

function mendImport(document: Json): void {
  for (const item of Object.values<Json>(document.paths ?? {})) {
    const operation = item.post;
    recordMaps(operation?.requestBody?.content?.['application/json']?.schema);
    for (const answer of Object.values<Json>(operation?.responses ?? {}))
      recordMaps(answer?.content?.['application/json']?.schema);
  }
  // The messages body requires `guid`, `name` and `type` at its top level, where it has only `messages`
  // (a group's fields pasted in, import-api.md notes): those three are dropped there.
  const messages = document.paths?.['/data_import/messages']?.post?.requestBody?.content?.['application/json']?.schema;
  if (Array.isArray(messages?.required))
    messages.required = messages.required.filter((name: string) => name in (messages.properties ?? {}));
  customTypesFree(messages?.properties?.messages?.additionalProperties);
}

/**
 * A message's `type` lists only text, image, file, audio and video, while its own description says "if
 * category==custom the customized type can be used ... any random string": the list binds unless the
 * category is `custom`.
 */
function customTypesFree(record: Json): void {
  const type = record?.properties?.type;
  if (!Array.isArray(type?.enum)) return;
  const listed = type.enum;
  delete type.enum;
  record.if = { properties: { category: { const: 'custom' } }, required: ['category'] };
  record.else = { properties: { type: { enum: listed } } };
}

/**
 * A record map keyed by a placeholder (`users: {"<uid>": {...}}`), with the record's id marked required
 * on the map itself: the map's values are the records, so the placeholder's schema becomes its
 * `additionalProperties` (every record is then checked against it) and the misplaced `required` goes.
 */
function recordMaps(node: Json): void {
  if (node === null || typeof node !== 'object') return;
  const keys = Object.keys(node.properties ?? {});
  if (keys.length === 1 && PLACEHOLDER.test(keys[0])) {
    node.additionalProperties = node.properties[keys[0]];
    delete node.properties;
    delete node.required;
  }
  for (const value of Object.values(node)) recordMaps(value);
}

function mendChat(document: Json): void {
  const members = document.paths?.['/groups/{guid}/members']?.get;
  const banned = document.paths?.['/groups/{guid}/bannedusers']?.get;
  // Both lists' 200 schemas say `data` is an object, while their own examples (and every other list)
  // answer an array of members.
  for (const operation of [members, banned]) {
    const data = operation?.responses?.['200']?.content?.['application/json']?.schema?.properties?.data;
    if (data?.type === 'object') Object.assign(data, { type: 'array', items: {} });
  }
  // The banned list names no `perPage` and `page`, though its example answers with the same pagination
  // as the members list, whose paging parameters it takes here (read-api.md lists both with paging).
  if (banned !== undefined && members !== undefined) {
    const paging = (members.parameters ?? []).filter((p: Json) => p.name === 'perPage' || p.name === 'page');
    const has = new Set((banned.parameters ?? []).map((p: Json) => p.name));
    banned.parameters = [...(banned.parameters ?? []), ...paging.filter((p: Json) => !has.has(p.name))];
  }
}
