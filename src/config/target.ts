/**
 * Where a run sends: `baseUrl`, else built from appId and region. Checked after the layers merge, as it
 * depends on several keys: problems join the others, and what does not stop the run is a warning.
 */
import { KNOWN_REGIONS, type MigrateConfig } from './keys.js';
import type { ConfigProblems } from './problems.js';
import { didYouMean } from './suggest.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export interface TargetCheck {
  /** import sends, and needs a target it may send the key to; validate and status only check one if given. */
  sends: boolean;
  /** The layer a key's value came from, for messages: a file's name, "the environment", "command-line flags". */
  layerOf: (key: 'region') => string;
  problems: ConfigProblems;
  warnings: string[];
}

/** The service URL (without a trailing slash), or '' when there is none to use. */
export function checkTarget(config: Partial<MigrateConfig>, check: TargetCheck): string {
  const { sends, problems, warnings } = check;
  const { baseUrl, appId, region } = config;
  // A value already refused in its layer is not also missing here.
  if (problems.touches('baseUrl', 'appId', 'region')) return '';
  let regionKnown = true;
  if (region !== undefined && !(KNOWN_REGIONS as readonly string[]).includes(region)) {
    const known = KNOWN_REGIONS.join(', ');
    const where = check.layerOf('region');
    if (baseUrl) {
      warnings.push(
        `${where}: "region" "${region}" is not a known region (${known}); it is not used, as baseUrl is set`,
      );
    } else {
      regionKnown = false;
      const message = `${where}: "region" must be one of ${known}, not "${region}"${didYouMean(region, KNOWN_REGIONS)}`;
      problems.add('region', message, 'CONFIG_UNKNOWN_REGION');
    }
  }
  if (!sends && !baseUrl && !(appId && region)) return '';
  if (!baseUrl && (!appId || !region)) {
    problems.add('baseUrl', 'set appId and region (or baseUrl) to say where to import', 'CONFIG_MISSING_TARGET');
    return '';
  }
  if (!regionKnown) return '';
  const raw = baseUrl || `https://${appId}.api-${region}.cometchat.io`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.add('baseUrl', `"baseUrl" is not a valid URL: ${raw}`);
    return '';
  }
  if (url.username || url.password) {
    problems.add('baseUrl', '"baseUrl" must not carry credentials');
    return '';
  }
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    if (sends) {
      problems.add(
        'baseUrl',
        `"baseUrl" uses plain http to ${url.hostname}: the API key would travel unencrypted. ` +
          'Use https:// (http is allowed only for a loopback sandbox)',
        'CONFIG_INSECURE_URL',
      );
      return '';
    }
    // Nothing is sent by validate or status: the key cannot leak, but the import that follows would stop.
    warnings.push(
      `"baseUrl" uses plain http to ${url.hostname}: import will refuse it, as the API key would travel ` +
        'unencrypted (http is allowed only for a loopback sandbox)',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.add('baseUrl', `"baseUrl" must be an https:// URL, not ${url.protocol}`);
    return '';
  }
  return url.toString().replace(/\/+$/, '');
}
