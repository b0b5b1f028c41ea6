import { Command } from 'commander';
import { ConfigProblemsError } from '../config/problems.js';
import { ExitCode, locatedMessage, MigrationError } from '../errors.js';
import type { CommandContext } from './context.js';

/** The `error` of the one JSON document a `--json` run prints when it fails. */
export interface JsonError {
  code: string;
  message: string;
  exitCode: number;
  hint?: string;
  /** Each config problem, when there were several. */
  problems?: string[];
}

/** Prints `{"error": {...}}` on stdout: a `--json` run answers with one document, whatever went wrong. */
export function printJsonError(ctx: CommandContext, error: JsonError): void {
  ctx.stdout.write(ctx.redact(`${JSON.stringify({ error })}\n`));
}

/**
 * The one place that turns an error into words and an exit code. A MigrationError prints its message
 * (and hint), never a stack trace; anything else is a bug, reported as such with its message only
 * (set CHAT_MIGRATE_DEBUG=1 for the stack). With `json`, the same error is also one JSON document on stdout.
 */
export function reportFatal(err: unknown, ctx: CommandContext, json = false): number {
  const { stderr, env } = ctx;
  const redact = (text: string) => ctx.redact(text);
  if (err instanceof MigrationError) {
    const message = locatedMessage(err);
    // The code goes on the first line; the lines after it (one per config problem) follow as they are.
    const [first, ...rest] = message.split('\n');
    stderr.write(redact(`error: ${first} [${err.code}]\n${rest.map((l) => `${l}\n`).join('')}`));
    if (err.hint) stderr.write(redact(`  ${err.hint}\n`));
    if (json) {
      const several = err instanceof ConfigProblemsError && err.problems.length > 1;
      const problems = several ? err.problems.map((p) => p.message) : undefined;
      const { code, exitCode, hint } = err;
      printJsonError(ctx, { code, message, exitCode, hint, problems });
    }
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(
    redact(
      `error: unexpected failure: ${message}\n` +
        '  this is a bug in chat-migrate; please report it with the command you ran\n',
    ),
  );
  if (env.CHAT_MIGRATE_DEBUG && err instanceof Error && err.stack) stderr.write(redact(`${err.stack}\n`));
  if (json) printJsonError(ctx, { code: 'UNEXPECTED', message, exitCode: ExitCode.fatal });
  return ExitCode.fatal;
}

/** Wraps a command's action: its resolved value is the command's exit code, kept in `outcome`. */
export function runCommand<A extends unknown[]>(
  ctx: CommandContext,
  outcome: { exitCode: number },
  action: (...args: A) => Promise<number>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      outcome.exitCode = await action(...args);
    } catch (err) {
      // commander passes the command last: its --json decides whether the error is also printed as JSON.
      const command = args.findLast((a): a is Command => a instanceof Command);
      outcome.exitCode = reportFatal(err, ctx, Boolean(command?.opts().json));
    }
  };
}
