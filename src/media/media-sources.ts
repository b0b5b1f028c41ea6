/**
 * Which attachments `media` covers, and where each one's bytes are: a URL on the allow-list, or a
 * file inside the export folder (a preset's relative media path, or a relative `url` beside a
 * messages file). Everything else is not a media source: it keeps its URL.
 */
import path from 'node:path';
import type { HostRules } from './host-rules.js';
import type { DeclaredType } from './web-page.js';

/**
 * The base a preset builds relative media URLs under when `media.exportFiles` is set and no
 * `mediaBaseUrl` is: `.invalid` never resolves (RFC 6761), so such a URL is never sent as it is.
 */
export const EXPORT_PLACEHOLDER_BASE = 'https://export.chat-migrate.invalid';

export interface MediaSource {
  /** The media map's key: the URL, or the file's absolute path. */
  source: string;
  url?: string;
  file?: string;
  /** The folder the file must stay in, also once its links are followed. */
  root?: string;
  /** Why it is refused without a try (a path that climbs out of the export folder). */
  refused?: string;
  /** A placeholder URL: if the file is not carried, the attachment has no URL to keep. */
  placeholder: boolean;
  /** Displayed in problems: the URL without its query (which may hold a signature), or the path. */
  display: string;
  /** What the attachment that named it says it is (a web page is not stored where it says otherwise). */
  declared?: DeclaredType;
}

export interface ExportFolder {
  /** The URL prefix the preset put before relative paths (its mediaBaseUrl or the placeholder). */
  baseUrl: string;
  folder: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export class MediaSources {
  constructor(
    private readonly rules: HostRules,
    private readonly exportFiles: boolean,
    private readonly exportFolder: ExportFolder | undefined,
    private readonly cwd: string,
  ) {}

  /** The media source of an attachment URL as read from `inputPath` (its file, when on disk), or undefined. */
  sourceOf(url: unknown, inputPath: string | undefined): MediaSource | undefined {
    if (typeof url !== 'string' || url === '') return undefined;
    const base = this.exportFolder;
    if (this.exportFiles && base && url.startsWith(`${base.baseUrl}/`)) {
      let rel: string;
      try {
        rel = url
          .slice(base.baseUrl.length + 1)
          .split('/')
          .map(decodeURIComponent)
          .join('/');
      } catch {
        return undefined;
      }
      return this.inside(base.folder, rel, base.baseUrl === EXPORT_PLACEHOLDER_BASE);
    }
    if (/^https?:\/\//i.test(url)) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return undefined;
      }
      if (!this.rules.allows(parsed.hostname)) return undefined;
      return { source: url, url, placeholder: false, display: `${parsed.origin}${parsed.pathname}` };
    }
    if (this.exportFiles && inputPath && !SCHEME.test(url) && !path.isAbsolute(url))
      return this.inside(path.dirname(inputPath), url, false);
    return undefined;
  }

  /**
   * The host of an attachment URL that is not a media source only because its host is not on the
   * list (the warning of unlisted-hosts.ts); undefined for a source, an export file or a non-URL.
   */
  unlistedHostOf(url: unknown): string | undefined {
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return undefined;
    const base = this.exportFolder;
    if (this.exportFiles && base && url.startsWith(`${base.baseUrl}/`)) return undefined;
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return undefined;
    }
    return this.rules.allows(host) ? undefined : host;
  }

  /** A relative path inside `folder`; one that climbs out of it (`../`) is refused: not the export's file. */
  private inside(folder: string, rel: string, placeholder: boolean): MediaSource {
    const root = path.resolve(folder);
    const file = path.resolve(root, rel.replace(/\\/g, '/'));
    if (file !== root && !file.startsWith(`${root}${path.sep}`))
      return { source: file, placeholder, display: rel, refused: 'the path climbs out of the export folder' };
    return { source: file, file, root, placeholder, display: path.relative(this.cwd, file) || file };
  }
}
