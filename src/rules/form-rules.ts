import type { JsonObject, Problem } from '../entities/types.js';
import { isCalendarDate, isTimeZone } from './calendar.js';
import { problem } from './rules.js';
import { isAbsent, isAbsoluteUrl, isObject, typeName } from './values.js';

/**
 * Interactive message form elements, as the vendor's interactive-message reference lists them (their
 * `form.*` rules are in docs/validate-rules.md). Extra fields are left alone: clients ignore them.
 */
type Kind = 'string' | 'boolean' | 'integer' | 'placeholder' | 'action' | 'options' | 'strings' | 'date' | 'timezone';

interface ElementSpec {
  fields: ReadonlyArray<readonly [string, Kind]>;
  required: readonly string[];
}

const CHOICE: ElementSpec = {
  fields: [
    ['optional', 'boolean'],
    ['label', 'string'],
    ['defaultValue', 'string'],
    ['options', 'options'],
  ],
  required: [],
};

const ELEMENTS: ReadonlyMap<unknown, ElementSpec> = new Map<string, ElementSpec>([
  ['label', { fields: [['text', 'string']], required: ['text'] }],
  [
    'textInput',
    {
      fields: [
        ['optional', 'boolean'],
        ['label', 'string'],
        ['maxLines', 'integer'],
        ['placeholder', 'placeholder'],
      ],
      required: [],
    },
  ],
  [
    'button',
    {
      fields: [
        ['buttonText', 'string'],
        ['disableAfterInteracted', 'boolean'],
        ['action', 'action'],
      ],
      required: [],
    },
  ],
  [
    'checkbox',
    {
      fields: [
        ['optional', 'boolean'],
        ['label', 'string'],
        ['defaultValue', 'strings'],
        ['options', 'options'],
      ],
      required: ['label'],
    },
  ],
  ['dropdown', CHOICE],
  ['radio', CHOICE],
  ['singleSelect', CHOICE],
  [
    'dateTime',
    {
      // defaultValue is a boolean in the spec's table; odd for a date, but that is what clients parse.
      fields: [
        ['optional', 'boolean'],
        ['label', 'string'],
        ['defaultValue', 'boolean'],
        ['dateTimeFormat', 'string'],
        ['mode', 'string'],
        ['timezoneCode', 'timezone'],
        ['from', 'date'],
        ['to', 'date'],
      ],
      required: [],
    },
  ],
]);
const ELEMENT_TYPES = 'label, textInput, button, checkbox, dropdown, radio, singleSelect, dateTime';

const URL_ACTIONS: ReadonlySet<unknown> = new Set(['urlNavigation', 'deepLinkAction']);
const API_ACTION_FIELDS: ReadonlyArray<readonly [string, 'string' | 'object']> = [
  ['url', 'string'],
  ['method', 'string'],
  ['payload', 'object'],
  ['headers', 'object'],
  ['dataKey', 'string'],
];
const EXPECTED: Record<Kind, string> = {
  string: 'a string',
  boolean: 'true or false',
  integer: 'an integer',
  placeholder: 'an object',
  action: 'an object',
  options: 'an array of options',
  strings: 'an array of strings',
  date: 'a string',
  timezone: 'a string',
};
// JSON from an export is a tree, but a pathological one must not overflow the stack.
const MAX_DEPTH = 64;

/** Finds every `formFields` key inside `value` (data, recursively) and checks its elements. */
export function checkForms(out: Problem[], value: unknown, path: string, depth = 0): void {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) checkForms(out, value[i], `${path}[${i}]`, depth + 1);
    return;
  }
  for (const key in value) {
    const v = (value as JsonObject)[key];
    if (key === 'formFields') checkForm(out, v, `${path}.formFields`);
    else checkForms(out, v, `${path}.${key}`, depth + 1);
  }
}

function checkForm(out: Problem[], fields: unknown, path: string): void {
  if (!Array.isArray(fields)) {
    out.push(problem('form.fields.not-array', path, `formFields must be an array; got ${typeName(fields)}`));
    return;
  }
  const firstIndex = new Map<string, number>();
  for (let i = 0; i < fields.length; i++) {
    const el: unknown = fields[i];
    const ep = `${path}[${i}]`;
    if (!isObject(el)) {
      out.push(problem('form.element.not-object', ep, `form element must be an object; got ${typeName(el)}`));
      continue;
    }
    const id = el.elementId;
    if (typeof id !== 'string' || id === '') {
      const got = isAbsent(id) || id === '' ? 'is required' : `must be a string; got ${typeName(id)}`;
      out.push(problem('form.element-id', `${ep}.elementId`, `elementId ${got}`));
    } else {
      const first = firstIndex.get(id);
      if (first === undefined) firstIndex.set(id, i);
      else
        out.push(
          problem(
            'form.element-id.duplicate',
            `${ep}.elementId`,
            `elementId ${JSON.stringify(id)} is also used by formFields[${first}]`,
          ),
        );
    }
    const spec = ELEMENTS.get(el.elementType);
    if (spec === undefined) {
      const got = isAbsent(el.elementType)
        ? 'is required'
        : `must be one of ${ELEMENT_TYPES}; got ${JSON.stringify(el.elementType)}`;
      out.push(problem('form.element-type', `${ep}.elementType`, `elementType ${got}`));
      continue;
    }
    checkElement(out, el, spec, ep);
  }
}

function checkElement(out: Problem[], el: JsonObject, spec: ElementSpec, ep: string): void {
  let optionValues: Set<string> | undefined;
  let defaultTyped = false;
  for (const [name, kind] of spec.fields) {
    const v = el[name];
    const fp = `${ep}.${name}`;
    if (isAbsent(v) || (v === '' && spec.required.includes(name))) {
      if (spec.required.includes(name))
        out.push(problem('form.field.required', fp, `${name} is required for ${String(el.elementType)}`));
      continue;
    }
    if (!hasKind(v, kind)) {
      out.push(problem('form.field.type', fp, `${name} must be ${EXPECTED[kind]}; got ${typeName(v)}`));
      continue;
    }
    if (name === 'defaultValue') defaultTyped = true;
    if (kind === 'placeholder') checkPlaceholder(out, v as JsonObject, fp);
    else if (kind === 'action') checkAction(out, v as JsonObject, fp);
    else if (kind === 'options') optionValues = checkOptions(out, v as unknown[], fp);
    else if (kind === 'date' && !isCalendarDate(v as string)) {
      out.push(problem('form.date', fp, `${name} must be a calendar date YYYY-MM-DD; got ${JSON.stringify(v)}`));
    } else if (kind === 'timezone' && !isTimeZone(v as string)) {
      out.push(problem('form.timezone', fp, `timezoneCode ${JSON.stringify(v)} is not a known IANA time zone`));
    }
  }
  if (optionValues !== undefined && defaultTyped)
    checkDefaults(out, el.defaultValue, optionValues, `${ep}.defaultValue`);
  const from = el.from;
  const to = el.to;
  // YYYY-MM-DD strings order as the dates do.
  if (typeof from === 'string' && typeof to === 'string' && isCalendarDate(from) && isCalendarDate(to) && from > to) {
    out.push(problem('form.date.range', `${ep}.from`, `from ${from} is after to ${to}`));
  }
}

function hasKind(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return Number.isInteger(v);
    case 'placeholder':
    case 'action':
      return isObject(v);
    case 'options':
      return Array.isArray(v);
    case 'strings':
      return Array.isArray(v) && v.every((s) => typeof s === 'string');
    default:
      return typeof v === 'string';
  }
}

function checkPlaceholder(out: Problem[], placeholder: JsonObject, fp: string): void {
  if (typeof placeholder.text !== 'string') {
    out.push(
      problem('form.field.type', `${fp}.text`, `placeholder.text must be a string; got ${typeName(placeholder.text)}`),
    );
  }
}

function checkAction(out: Problem[], action: JsonObject, fp: string): void {
  // The spec makes urlNavigation the default, so an action without actionType still needs a url.
  const type = isAbsent(action.actionType) ? 'urlNavigation' : action.actionType;
  if (URL_ACTIONS.has(type)) {
    const url = action.url;
    if (typeof url !== 'string' || !isAbsoluteUrl(url)) {
      const got = isAbsent(url) ? 'is required' : 'must be a valid absolute URL';
      out.push(problem('form.action.url', `${fp}.url`, `url ${got} for ${String(type)}`));
    }
  } else if (type === 'apiAction') {
    for (const [name, kind] of API_ACTION_FIELDS) {
      const v = action[name];
      if (isAbsent(v) || (kind === 'string' ? typeof v === 'string' : isObject(v))) continue;
      out.push(
        problem(
          'form.field.type',
          `${fp}.${name}`,
          `${name} must be ${kind === 'string' ? 'a string' : 'an object'}; got ${typeName(v)}`,
        ),
      );
    }
  } else if (type !== 'customAction') {
    out.push(
      problem(
        'form.action.type',
        `${fp}.actionType`,
        `actionType must be apiAction, urlNavigation, deepLinkAction or customAction; got ${JSON.stringify(type)}`,
      ),
    );
  }
}

/** Returns the option values, or undefined when some option is malformed (defaults are then not compared). */
function checkOptions(out: Problem[], options: unknown[], fp: string): Set<string> | undefined {
  const values = new Set<string>();
  let ok = true;
  for (let i = 0; i < options.length; i++) {
    const o: unknown = options[i];
    if (isObject(o) && typeof o.value === 'string' && typeof o.label === 'string') {
      values.add(o.value);
    } else {
      out.push(problem('form.option', `${fp}[${i}]`, `option ${i + 1} must be an object with string value and label`));
      ok = false;
    }
  }
  return ok ? values : undefined;
}

function checkDefaults(out: Problem[], defaultValue: unknown, values: Set<string>, fp: string): void {
  const list = Array.isArray(defaultValue) ? defaultValue : typeof defaultValue === 'string' ? [defaultValue] : [];
  for (const d of list) {
    if (typeof d === 'string' && !values.has(d)) {
      out.push(problem('form.default-value', fp, `defaultValue ${JSON.stringify(d)} is not among the option values`));
    }
  }
}
