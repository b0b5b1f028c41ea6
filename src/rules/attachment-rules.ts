import type { Problem } from '../entities/types.js';
import { problem } from './rules.js';
import { formatCount, isAbsent, isHttpUrl, isObject, typeName } from './values.js';

/** A file may be up to 100 MB (docs/api-contract.md "Limits"); counted apart from the 10 KB of data. */
export const MAX_ATTACHMENT_BYTES = 104_857_600;

const REQUIRED = ['url', 'name', 'mimeType', 'extension'] as const;
// The vendor schema types size as a string, exports usually as a number: both are accepted.
const DIGITS = /^\d+$/;

/** data.attachments: properties of files (never the files), each with url, name, mimeType, extension. */
export function checkAttachments(out: Problem[], attachments: unknown): void {
  if (!Array.isArray(attachments)) {
    out.push(
      problem(
        'attachments.not-array',
        'data.attachments',
        `data.attachments must be an array; got ${typeName(attachments)}`,
      ),
    );
    return;
  }
  for (let i = 0; i < attachments.length; i++) {
    const a: unknown = attachments[i];
    const path = `data.attachments[${i}]`;
    if (!isObject(a)) {
      out.push(problem('attachment.not-object', path, `attachment ${i + 1} must be an object; got ${typeName(a)}`));
      continue;
    }
    for (const key of REQUIRED) {
      const v = a[key];
      if (typeof v !== 'string' || v === '') {
        const got = isAbsent(v) || v === '' ? 'is required' : `must be a string; got ${typeName(v)}`;
        out.push(problem('attachment.required', `${path}.${key}`, `${key} ${got}`));
      } else if (key === 'url' && !isHttpUrl(v)) {
        out.push(problem('attachment.url.invalid', `${path}.url`, 'url is not an absolute http(s) URL'));
      }
    }
    checkSize(out, `${path}.size`, a.size);
  }
}

function checkSize(out: Problem[], field: string, size: unknown): void {
  if (isAbsent(size)) return;
  let bytes: number;
  if (typeof size === 'number' && Number.isInteger(size) && size >= 0) bytes = size;
  else if (typeof size === 'string' && DIGITS.test(size)) bytes = Number(size);
  else {
    out.push(
      problem('attachment.size.invalid', field, `size must be a whole number of bytes; got ${JSON.stringify(size)}`),
    );
    return;
  }
  if (bytes > MAX_ATTACHMENT_BYTES) {
    out.push(
      problem(
        'attachment.size.too-large',
        field,
        `size is ${formatCount(bytes)} bytes; at most ${formatCount(MAX_ATTACHMENT_BYTES)} (100 MB)`,
      ),
    );
  }
}
