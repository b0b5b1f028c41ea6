/**
 * Attachments that `media` leaves at their old URL because their host is not on `media.hosts`:
 * counted per host name by `validate` and the import's media pass, and named in one warning, so a
 * typo in `hosts` (`files.slak.com`) is seen before the old system closes, not after.
 */
export interface UnlistedHosts {
  /** Attachments on hosts not on the list. */
  total: number;
  /** Host name -> attachments on it. */
  byHost: Record<string, number>;
}

/** Host names kept apart at the most; more (an export of random subdomains) are counted under one entry. */
export const MAX_HOSTS = 1000;
export const OTHER_HOSTS = '(other hosts)';
/** Hosts named in the warning; all of them are in `--json`. */
const NAMED_HOSTS = 10;

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Adds `n` attachments on `host` to `counts`, keeping at most MAX_HOSTS names apart. */
export function addHostCount(counts: Record<string, number>, host: string, n = 1): void {
  const key = host in counts || Object.keys(counts).length < MAX_HOSTS ? host : OTHER_HOSTS;
  counts[key] = (counts[key] ?? 0) + n;
}

/** `media does not carry 15 attachments, which keep their URL: 12 on a.example, 3 on b.example: not in media.hosts`. */
export function unlistedHostsText(u: UnlistedHosts): string {
  const hosts = Object.entries(u.byHost).sort((a, b) => b[1] - a[1]);
  const named = hosts.slice(0, NAMED_HOSTS).map(([host, n]) => `${n} on ${host}`);
  if (hosts.length > NAMED_HOSTS) named.push(count(hosts.length - NAMED_HOSTS, 'more host'));
  return (
    `media does not carry ${count(u.total, 'attachment')}, which keep their URL: ${named.join(', ')}: ` +
    'not in media.hosts (a typo there? see docs/media.md)'
  );
}
