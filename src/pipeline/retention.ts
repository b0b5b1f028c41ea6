/**
 * The service keeps messages for `retentionDays` (the vendor's default: 6 months): older ones are
 * accepted by the import and then never shown (docs/verify.md "Retention"). import and validate say so
 * once, before anything is sent; verify reports them apart from missing ones.
 */
/** The UNIX second before which messages are beyond the window; undefined when it is unlimited (0). */
export function retentionCutoff(nowSec: number, retentionDays: number): number | undefined {
  return retentionDays > 0 ? nowSec - retentionDays * 86_400 : undefined;
}

/** Whether a mapped message's sentAt lies before the cutoff. */
export const isBeyondRetention = (sentAt: unknown, cutoffSec: number | undefined): boolean =>
  cutoffSec !== undefined && typeof sentAt === 'number' && sentAt < cutoffSec;

/** The one notice import and validate give; undefined when no message is that old. */
export function retentionNotice(count: number, retentionDays: number): string | undefined {
  if (count === 0) return undefined;
  const what = count === 1 ? '1 message is' : `${count} messages are`;
  return (
    `${what} older than the service's ${retentionDays}-day retention window (retentionDays): the service ` +
    "accepts them but never shows them. Ask the vendor to extend the app's message retention before " +
    "importing, or leave them out with --since <date>; set retentionDays to your app's window (0: unlimited)"
  );
}
