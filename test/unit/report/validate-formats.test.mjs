// validate's two formats, drawn from one result: the text a person reads and the --json a CI job parses
// carry the same problems, counts and verdict. The command tests read one format each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatValidateJson, formatValidateText } from '../../../dist/report/validate-report.js';

/** @typedef {import('../../../dist/pipeline/validate/validate-result.js').LocatedProblem} LocatedProblem */

/** @returns {import('../../../dist/pipeline/validate/validate-result.js').ValidateResult} */
function result(overrides = {}) {
  /** @type {LocatedProblem} */
  const error = {
    file: 'messages.ndjson',
    line: 7,
    entity: 'messages',
    id: 'm7',
    field: 'sender',
    rule: 'ref.missing-user',
    severity: 'error',
    message: 'sender u9 is not a user of the export',
  };
  /** @type {LocatedProblem} */
  const warning = { ...error, line: 9, id: 'm9', field: 'data.text', rule: 'text.long', severity: 'warning' };
  return {
    errors: [error],
    warnings: [warning],
    byRule: { 'ref.missing-user': 1, 'text.long': 1 },
    byEntity: {
      users: { records: 3, errors: 0, warnings: 0, skipped: 0 },
      messages: { records: 10, errors: 1, warnings: 1, skipped: 2 },
    },
    recordsRead: 13,
    errorCount: 1,
    warningCount: 1,
    stoppedEarly: false,
    notChecked: [],
    beyondRetention: 0,
    ...overrides,
  };
}

test('validate as text and as JSON, from one result: the same problems, counts and verdict', () => {
  const r = result();
  const text = formatValidateText(r);
  const doc = JSON.parse(formatValidateJson(r));
  assert.equal(doc.ok, false);
  assert.equal(doc.recordsRead, 13);
  assert.deepEqual(doc.problems, [...r.errors, ...r.warnings]);
  assert.deepEqual(doc.byEntity, r.byEntity);
  // Text: a located line per problem, as editors jump to them, then the counts and the verdict last.
  assert.match(
    text,
    /^ {2}messages\.ndjson:7: message m7: sender: sender u9 is not a user of the export \[ref\.missing-user\]$/m,
  );
  assert.match(text, /^ {2}messages\.ndjson:9: message m9: data\.text: .* \[text\.long\]$/m);
  assert.match(text, /^ {2}messages {2}10 records, 1 error, 1 warning, 2 skipped$/m);
  assert.match(text.trimEnd().split('\n').at(-1), /^FAILED: 13 records read, 1 error, 1 warning$/);
});

test('a clean result: text ends OK and JSON says ok, with the same count', () => {
  const r = result({ errors: [], warnings: [], byRule: {}, errorCount: 0, warningCount: 0 });
  assert.equal(JSON.parse(formatValidateJson(r)).ok, true);
  assert.match(formatValidateText(r).trimEnd().split('\n').at(-1), /^OK: 13 records read, no errors$/);
});
