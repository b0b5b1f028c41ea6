/**
 * Did-you-mean for a misspelled config key, entity or region, as commander does for flags: its
 * approach (lib/suggestSimilar.js) is followed, comparing without case so `BatchSize` or `batch_size`
 * still finds `batchSize`.
 */

/** Edits beyond this are a different word, not a typo. */
const MAX_DISTANCE = 3;
/** Share of the longer word that must survive the edits: "mars" is not a misspelled "us". */
const MIN_SIMILARITY = 0.4;

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_DISTANCE) return Math.max(a.length, b.length);
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d[i] = [i];
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let j = 1; j <= b.length; j++) {
    for (let i = 1; i <= a.length; i++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/** The candidates nearest to `word` (ties all kept, sorted), or none when nothing is close enough. */
export function similarWords(word: string, candidates: readonly string[]): string[] {
  let best = MAX_DISTANCE;
  let similar: string[] = [];
  const typed = word.toLowerCase();
  for (const candidate of new Set(candidates)) {
    if (candidate.length <= 1) continue;
    const distance = editDistance(typed, candidate.toLowerCase());
    const length = Math.max(word.length, candidate.length);
    if ((length - distance) / length <= MIN_SIMILARITY) continue;
    if (distance < best) {
      best = distance;
      similar = [candidate];
    } else if (distance === best) {
      similar.push(candidate);
    }
  }
  return similar.sort((a, b) => a.localeCompare(b));
}

/** `; did you mean "batchSize"?` to append to a message, or '' when no candidate is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const similar = similarWords(word, candidates).map((w) => `"${w}"`);
  if (similar.length === 0) return '';
  return similar.length === 1 ? `; did you mean ${similar[0]}?` : `; did you mean one of ${similar.join(', ')}?`;
}

/** The words for an unknown key: a near match if there is one, else every known key. */
export function unknownKeyText(key: string, known: readonly string[]): string {
  return `is not a known key${didYouMean(key, known) || ` (known: ${known.join(', ')})`}`;
}
