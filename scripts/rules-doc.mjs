// docs/validate-rules.md is this function's output (scripts/gen-docs.mjs writes it, and `npm test`
// fails when the committed page differs), so the rules table cannot drift from RULE_TABLE. It reads
// the built rules (dist/), so run `npm run build` first.
import { RULES } from '../dist/rules/rules.js';

/** @typedef {import('../dist/rules/rules.js').RuleInfo} RuleInfo */

const HEADER =
  '<!-- Generated from scripts/rules-doc.mjs and src/rules/rules.ts by scripts/gen-docs.mjs:\n' +
  '     edit those, then run `npm run build && node scripts/gen-docs.mjs`. -->';

/** What validate does and how it reports; the input.* and field.* codes live in the readers, so they are prose. */
const INTRO =
  `# validate: checks and rules

\`chat-migrate validate\` (or \`import --dry-run\`) runs the import's read, map and check stages over the
whole export and sends nothing. It streams: memory holds id sets for the reference checks (a compact
hashed index of about 30 bytes an id for users, groups and members, with a hash of each record's
content; message ids, the ones that grow with the export, in a fixed 16 MB Bloom filter), ` +
  `never records. It reads the entities in import order, so each
reference is checked against what came before: member -> group and user, group owner -> user, message
sender -> user, message receiver -> user or group (by \`receiverType\`). A reference is checked only when
that entity's export is configured; otherwise one note says it could not be. A reference to a record
that is not in the export is accepted when the record carries the matching details object
(\`senderUserDetails\`, \`groupOwnerDetails\`, ...), because the service creates the target from it.

A user or group that is not in holds back the members and messages that name it: they are not sent
until it gets in, and are not listed one by one ([blocked records](resume-and-rejects.md)). One the
export rejects or skips is one \`parent.holds-back\` line at its own place. One missing from the export
(nor in \`userMap\`/\`groupMap\`, nor a details object) is one line at the first record naming it, under
that record's \`ref.*\` rule, with the count it holds back:

\`\`\`
  m.ndjson:4: message m4: sender: user u9 is not in the export: holds back 12 messages (first here) [ref.message.sender]
\`\`\`

A group's missing owner is no such parent: the group is rejected (\`ref.group.owner\`).

\`\`\`
Errors (2):
  users.csv:14: user Bob: uid: duplicate uid bob; first seen at users.csv:3 [id.duplicate]
  messages.ndjson:812: message m812: data.text: a text message needs non-empty data.text [message.text.empty]
Warnings (1):
  groups.json:40: group g7: more than 300 members (412): no conversation or unread-count updates [group.large]
\`\`\`

Text: one line a problem, \`file:line: entity id: field: message [rule]\`, errors and warnings apart,
then counts per rule and per entity. \`--json\`: one document with \`problems\` (file, line, entity, id,
field, rule, severity, message), \`byRule\`, \`byEntity\`, \`recordsRead\`, \`errorCount\`, \`warningCount\`,
\`stoppedEarly\`, \`notChecked\`. \`--max-errors N\` stops early and says so. Exit 0 without errors
(warnings allowed), 3 with errors. \`import\` runs the same checks on every record and never sends one
that fails: it goes to the rejects file with its rule as \`code\`, and the run goes on; \`import --strict\`
refuses to start while there are errors.

Malformed input is reported with its place and, where the format allows, the rest of the file is still
checked: a CSV row with the wrong number of columns (\`input.csv-columns\`), a quote that never closes or
text after a closing quote (\`input.csv-syntax\`: that row; reading goes on at the next line), a JSON
syntax error (\`input.json-syntax\`, at line and column: a record that is not JSON costs that record, a
break in the structure around the records ends the file and names the lines not read; in NDJSON only
that line), a line that is not an object (\`input.not-object\`), a JSON document of the wrong shape
(\`input.json-shape\`), invalid UTF-8 (\`input.utf8\`, that record; a file whose start is not UTF-8, UTF-16 with
its byte-order mark or Latin-1, is one \`input.encoding\` naming the \`iconv\` command, and none of its records is
read), an empty file (\`input.empty-file\`, a
warning), a corrupt gzip (\`input.gzip\`, names the line from which nothing could be read), a broken CSV
header (\`input.csv-header\`). The mapper adds \`field.json\` (a JSON-text cell that is not JSON),
\`field.conflict\` (a dotted column that collides with a value), \`field.unknown\` (warning, once per
file) and \`timestamp.never\` (warning: an optional time that means "never", left out of what is sent).
[Input formats](input-formats.md#malformed-input) says what is read around each.

Exports' odd values, one rule for \`validate\`, \`import\` and the sandbox: a time before 1970-01-02
(0, a negative number, the epoch written in the export's time zone such as Sendbird's
\`"1970-01-01 00:59:59+0100"\`, a zero date such as \`0001-01-01T00:00:00Z\`) means "never". In an
optional field (createdAt, lastActiveAt, deactivatedAt, joinedAt, deliveredAt, readAt) it is a warning
and the field is left out; in a message's sentAt it is an error (\`timestamp.invalid\`). A record that
repeats an earlier one exactly (identical after mapping: exports run over overlapping ranges and
joined) is not a problem: it is counted as skipped (\`duplicate\`) and not sent again. The same id with
other content is \`id.duplicate\`, naming where the id was first seen.
`;

const RULES_INTRO = `## Rules

Every rule code \`validate\` (and \`import\`) can report for a record, with its entity and severity. Codes
are stable: scripts may filter on them. Errors stop a record from being sent; warnings do not.`;

/** A table cell: a pipe inside a description would end the cell early. */
const cell = (/** @type {string} */ text) => text.replace(/\|/g, '\\|');

/** @param {RuleInfo} rule */
function ruleRow(rule) {
  return `| \`${rule.code}\` | ${rule.entity} | ${rule.severity} | ${cell(rule.description)} |`;
}

/** The whole Markdown of docs/validate-rules.md. */
export function renderRulesDoc() {
  const warnings = RULES.filter((r) => r.severity === 'warning').length;
  const counts = `${RULES.length} rules: ${RULES.length - warnings} errors, ${warnings} warnings.`;
  const table = ['| rule | entity | severity | what it checks |', '|---|---|---|---|', ...RULES.map(ruleRow)];
  return [HEADER, '', INTRO, RULES_INTRO, '', counts, '', ...table, ''].join('\n');
}
