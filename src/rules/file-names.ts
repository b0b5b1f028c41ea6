/**
 * The export's file names as small numbers: the id indexes keep a record's place as (file number,
 * line), not a string per record, and give the name back when a problem names that place.
 */
export class FileNames {
  private readonly names: string[] = [];
  private readonly numbers = new Map<string, number>();
  private last = '';
  private lastNumber = -1;

  numberOf(file: string): number {
    // Records arrive file by file, so the last file answers almost every lookup.
    if (file === this.last && this.lastNumber >= 0) return this.lastNumber;
    let n = this.numbers.get(file);
    if (n === undefined) {
      n = this.names.length;
      this.names.push(file);
      this.numbers.set(file, n);
    }
    this.last = file;
    this.lastNumber = n;
    return n;
  }

  nameOf(file: number): string {
    return this.names[file];
  }

  /** `file:line`, or the file alone when the line is not known. */
  location(file: number, line: number): string {
    const name = this.names[file] ?? '?';
    return line > 0 ? `${name}:${line}` : name;
  }
}
