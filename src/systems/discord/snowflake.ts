/**
 * Discord's ids are snowflakes: milliseconds since Discord's epoch (2015-01-01) in the bits above 22
 * (https://discord.com/developers/docs/reference#snowflakes). A delta asks for messages `after` the
 * snowflake of its cutoff time, which needs no message id of an earlier run.
 */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** The smallest snowflake of a time: every message sent at or after `ms` has a larger id. */
export function snowflakeAt(ms: number): string {
  const since = Math.max(0, Math.floor(ms) - DISCORD_EPOCH_MS);
  return since === 0 ? '0' : ((BigInt(since) << 22n) - 1n).toString();
}

/** When a snowflake was made (ms since 1970). */
export function snowflakeMs(id: string): number | undefined {
  if (!/^\d{1,20}$/.test(id)) return undefined;
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

/** Compares two snowflakes as numbers (their texts differ in length before 2015-2016 ids). */
export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
