const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text and attribute values into HTML: the five characters that can end a text or an attribute.
 * Every value from an export, a file name or a message goes through it; nothing else is needed
 * because the page holds no script and no URL built from data (docs/design-notes.md).
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
