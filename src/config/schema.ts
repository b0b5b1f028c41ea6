/** Checks each layer of settings against the key table (keys.ts). */
import {
  CONFIG_KEY_NAMES,
  CONFIG_KEYS,
  specOf,
  type ConfigKey,
  type KeyKind,
  type KeySpec,
  type MigrateConfig,
} from './keys.js';
import { ConfigProblems, keyProblem } from './problems.js';
import { checkSources, isPlainObject } from './sources-schema.js';
import { checkMedia } from './media-schema.js';
import { unknownKeyText } from './suggest.js';

// The run's config type, where its users have always found it.
export type { MigrateConfig } from './keys.js';

/** Keys a config file may carry for editors and humans; ignored. */
const IGNORED_KEYS = new Set(['$schema', '//', 'comment']);

export const isConfigKey = (key: string): key is ConfigKey => Object.hasOwn(CONFIG_KEYS, key);

/** Marks a value that failed its check: the problem is recorded, the key left out of the layer. */
const INVALID = Symbol('invalid');

/**
 * Checks one layer of raw settings (a config file, the environment or flags) key by key, so that an
 * unknown key or a wrong type is reported before anything is read or sent. Throws every problem at once.
 */
export function checkConfigLayer(raw: unknown, where: string): Partial<MigrateConfig> {
  const problems = new ConfigProblems();
  const layer = collectConfigLayer(raw, where, problems);
  problems.throwIfAny();
  return layer;
}

/** Checks one layer as checkConfigLayer does, adding its problems to `problems`; bad keys are left out. */
export function collectConfigLayer(raw: unknown, where: string, problems: ConfigProblems): Partial<MigrateConfig> {
  if (!isPlainObject(raw)) {
    problems.add(where, `${where}: the configuration must be a JSON object`);
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (IGNORED_KEYS.has(key)) continue;
    if (!isConfigKey(key)) {
      problems.add(key, keyProblem(where, key, unknownKeyText(key, CONFIG_KEY_NAMES)));
      continue;
    }
    // null leaves a key unset, so an example file can show every key without setting it.
    if (value === undefined || value === null) continue;
    const checked = checkValue(where, key, value, problems);
    if (checked !== INVALID) out[key] = checked;
  }
  return out as Partial<MigrateConfig>;
}

/** What is wrong with a whole number for this key, or undefined: the layer check and the flag parser share it. */
export function intProblem(spec: KeySpec, value: unknown): string | undefined {
  const min = spec.min ?? 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    return `must be a whole number${min > 0 ? ` of at least ${min}` : min === 0 ? ' (0 or more)' : ''}`;
  }
  if (spec.max !== undefined && value > spec.max) {
    return `must be at most ${spec.max}${spec.maxWhy ? ` (${spec.maxWhy})` : ''}`;
  }
  return undefined;
}

/** The choice `value` names, in any case (`EU` is `eu`); undefined when it names none. */
export function choiceOf(choices: readonly string[], value: string): string | undefined {
  const lower = value.toLowerCase();
  return choices.find((choice) => choice.toLowerCase() === lower);
}

function checkValue(where: string, key: ConfigKey, value: unknown, problems: ConfigProblems): unknown {
  const spec = specOf(key);
  const fail = (text: string) => {
    problems.add(key, keyProblem(where, key, text));
    return INVALID;
  };
  switch (spec.kind) {
    case 'string':
    case 'path':
    case 'url':
      if (typeof value !== 'string' || value === '') return fail('must be a non-empty string');
      // Another value is left as written: what it means is the key's own check (region: target.ts).
      if (spec.choices) return choiceOf(spec.choices, value) ?? value;
      return !spec.pattern || spec.pattern.regex.test(value) ? value : fail(`must be ${spec.pattern.what}`);
    case 'bool':
      return typeof value === 'boolean' ? value : fail('must be true or false');
    case 'int': {
      const problem = intProblem(spec, value);
      return problem === undefined ? value : fail(problem);
    }
    case 'rate':
      return value === 'auto' || (typeof value === 'number' && value > 0)
        ? value
        : fail('must be a positive number or "auto"');
    case 'sources':
      return checkSources(where, value, problems) ?? INVALID;
    case 'media':
      return checkMedia(where, value, problems) ?? INVALID;
  }
}

/**
 * An environment variable's text as the value its key's kind holds, for the layer check; text that is
 * not one stays text, so the check names the key.
 */
export function valueFromText(kind: KeyKind, text: string): unknown {
  const number = text.trim() === '' ? NaN : Number(text);
  switch (kind) {
    case 'int':
      return Number.isInteger(number) ? number : text;
    case 'rate':
      return text === 'auto' || Number.isNaN(number) ? text : number;
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}
