/**
 * The `User-Agent` of every request to a source's hosts (the pull's, and media downloads), built once
 * from package.json: a server that sees the tool can tell what it is, which version, and where to
 * read about it.
 * Discord's reference asks clients for `DiscordBot ($url, $versionNumber)` and may block a request
 * without it (https://discord.com/developers/docs/reference#user-agent); the other sources take the
 * plain product form of RFC 9110 10.1.5.
 */
import { readFileSync } from 'node:fs';

interface PackageFacts {
  name: string;
  version: string;
  homepage?: string;
  repository?: string | { url?: string };
}

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as PackageFacts;

/** The repository's address from package.json (`git+https://...git` made a web address), else its npm page. */
function projectUrl(facts: PackageFacts): string {
  const repo = typeof facts.repository === 'string' ? facts.repository : facts.repository?.url;
  const url = (repo ?? facts.homepage)?.replace(/^git\+/, '').replace(/\.git$/, '');
  return url !== undefined && /^https?:\/\//.test(url) ? url : `https://www.npmjs.com/package/${facts.name}`;
}

export const TOOL_VERSION = pkg.version;
export const TOOL_URL = projectUrl(pkg);

/** `chat-migrate/0.1.0 (+https://...)`; Discord's own shape first for Discord, the product after it. */
export function userAgentFor(source: string): string {
  const product = `${pkg.name}/${TOOL_VERSION}`;
  return source === 'discord' ? `DiscordBot (${TOOL_URL}, ${TOOL_VERSION}) ${product}` : `${product} (+${TOOL_URL})`;
}
