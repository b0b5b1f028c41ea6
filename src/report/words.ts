/** Counts in words, and lines that fit a terminal: shared by the bars, the CI lines and the summary. */

/** `plural(1, 'record')` is `1 record`; `plural(2, 'retry', 'retries')` is `2 retries`. */
export function plural(n: number, singular: string, many = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : many}`;
}

/** `was` or `were`, to agree with a count. */
export const wasOrWere = (n: number): string => (n === 1 ? 'was' : 'were');

/** Characters a terminal shows: escape codes take no room (every other character here takes one cell). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape codes a terminal draws are what it strips.
export const visibleLength = (text: string): number => [...text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')].length;

/** Cut to `width` cells with an ellipsis: a live line must never wrap, or its redraw lands a line too low. */
export function fitLine(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/**
 * Word-wraps `text` to `width` cells; lines after the first are indented. A word longer than a line
 * (a long path) stands alone on its line, broken into pieces when `breakWords` (where the terminal
 * would cut it), else left for the terminal to wrap.
 */
export function wrapText(text: string, width: number, indent = '  ', breakWords = false): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    // A paragraph's own indent is kept: the words after it wrap as the text says.
    const lead = /^ */.exec(paragraph)![0];
    let line = lead;
    for (const word of paragraph.slice(lead.length).split(' ')) {
      const candidate = line.trim() === '' ? `${line}${word}` : `${line} ${word}`;
      if (line.trim() !== '' && visibleLength(candidate) > width) {
        out.push(line);
        line = `${lead}${indent}${word}`;
      } else {
        line = candidate;
      }
      while (breakWords && visibleLength(line) > width) {
        const chars = [...line];
        out.push(chars.slice(0, width).join(''));
        line = `${lead}${indent}${chars.slice(width).join('')}`;
      }
    }
    out.push(line);
  }
  return out;
}
