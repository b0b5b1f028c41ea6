import type { EntityName } from '../entities/types.js';
import type { EntityCounts } from '../pipeline/events.js';
import { rate, type Reporter } from './reporter.js';

/** Progress lines every few seconds, for CI logs and pipes. */
export class LineReporter implements Reporter {
  private lastAt = 0;
  static readonly EVERY_MS = 5000;

  constructor(private readonly out: NodeJS.WritableStream) {}

  phaseStarted(entity: EntityName): void {
    this.out.write(`[${entity}] started\n`);
    this.lastAt = Date.now();
  }
  progress(entity: EntityName, c: EntityCounts): void {
    if (Date.now() - this.lastAt < LineReporter.EVERY_MS) return;
    this.lastAt = Date.now();
    this.out.write(`[${entity}] ${this.describe(c)}\n`);
  }
  phaseFinished(entity: EntityName, c: EntityCounts, completed: boolean): void {
    this.out.write(`[${entity}] ${completed ? 'finished' : 'stopped'}: ${this.describe(c)}\n`);
  }
  warning(message: string): void {
    this.out.write(`warning: ${message}\n`);
  }
  info(message: string): void {
    this.out.write(`${message}\n`);
  }
  close(): void {}

  private describe(c: EntityCounts): string {
    return `${c.read} read, ${c.imported} imported, ${c.alreadyPresent} already there, ${c.rejected} rejected, ${c.skipped} skipped, ${rate(c)} records/s`;
  }
}
