import { ExitCode, MigrationError } from '../errors.js';

/** Secrets that must never reach the terminal, even inside an error message from a dependency. */
const secrets = new Set<string>();

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}

/**
 * The one place that turns an error into words and an exit code. A MigrationError prints its message
 * (and hint), never a stack trace; anything else is a bug, reported as such with its message only
 * (set CHAT_MIGRATE_DEBUG=1 for the stack).
 */
export function reportFatal(err: unknown, stderr: NodeJS.WritableStream, env: NodeJS.ProcessEnv): number {
  if (err instanceof MigrationError) {
    const where = err.location?.file ? `${err.location.file}${err.location.line ? `:${err.location.line}` : ''}: ` : '';
    stderr.write(redact(`error: ${where}${err.message} [${err.code}]\n`));
    if (err.hint) stderr.write(redact(`  ${err.hint}\n`));
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(redact(`error: unexpected failure: ${message}\n  this is a bug in chat-migrate; please report it with the command you ran\n`));
  if (env.CHAT_MIGRATE_DEBUG && err instanceof Error && err.stack) stderr.write(redact(`${err.stack}\n`));
  return ExitCode.fatal;
}

/** Wraps a command's action: its resolved value is the exit code. */
export function runCommand<A extends unknown[]>(action: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let code: number;
    try {
      code = await action(...args);
    } catch (err) {
      code = reportFatal(err, process.stderr, process.env);
    }
    process.exitCode = code;
  };
}
