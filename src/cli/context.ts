import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { SignalSource } from '../pipeline/run/signals.js';

/** A stream a command writes to: the process's, or a test's buffer. */
export type Output = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * Everything a command takes from the world it runs in. `bin/` passes the process's; a test or an
 * embedding program passes its own, so commands run in-process with no global state between them.
 */
export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: Output;
  stderr: Output;
  /** Aborting it is one Ctrl+C: the run stops taking work and saves its checkpoint. */
  signal?: AbortSignal;
  /** Signals as the process gets them (a second one aborts requests in flight, a third exits). */
  signals?: SignalSource;
  /** The terminal's width, where stdout and stderr do not say it. */
  columns?: number;
  /** The clock every wait of a run is on (limiters, retries, progress intervals): the system's by default. */
  clock?: Clock;
  /** Called at a third Ctrl+C: `bin/` exits at once; in-process callers need not. */
  exit?: (code: number) => void;
  /** Called once the command line is parsed, before the command runs (not for --help or --version). */
  onCommand?: (name: string) => void | Promise<void>;
}

/**
 * One command's context: the io it was given and the secrets it has seen. Secrets are per command, so
 * two runs in one process never redact each other's values and none outlives its run.
 */
export class CommandContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Output;
  readonly stderr: Output;
  readonly signals: SignalSource;
  /** The terminal's width, if it has one. */
  readonly columns: number | undefined;
  readonly exit: (code: number) => void;
  readonly clock: Clock | undefined;
  private readonly secrets = new Set<string>();

  constructor(io: CliIo) {
    this.cwd = io.cwd;
    this.env = io.env;
    this.stdout = io.stdout;
    this.stderr = io.stderr;
    this.columns = io.columns ?? io.stderr.columns;
    this.signals = signalSource(io);
    this.exit = io.exit ?? (() => {});
    this.clock = io.clock;
  }

  /** A value that must never reach the terminal, even inside an error message from a dependency. */
  registerSecret(value: string | undefined): void {
    if (value && value.length >= 4) this.secrets.add(value);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    return out;
  }

  /** One `warning: …` line on stderr per item. */
  warn(warnings: Iterable<string>): void {
    for (const w of warnings) this.stderr.write(this.redact(`warning: ${w}\n`));
  }

  /** A path the user typed, from the working directory the command was given. */
  resolve(file: string): string {
    return path.resolve(this.cwd, file);
  }

  /** A path as the user would type it from the working directory. */
  shown(file: string): string {
    return path.relative(this.cwd, file) || file;
  }
}

/** The process's signals and the caller's AbortSignal, as one source the run listens to. */
function signalSource(io: CliIo): SignalSource {
  if (io.signal === undefined) return io.signals ?? new EventEmitter();
  const source = new StopSource();
  io.signals?.on('SIGINT', (signal) => source.emit(signal));
  io.signals?.on('SIGTERM', (signal) => source.emit(signal));
  const abortSignal = io.signal;
  if (abortSignal.aborted) source.emit('SIGINT');
  else abortSignal.addEventListener('abort', () => source.emit('SIGINT'), { once: true });
  return source;
}

/**
 * Signals that are not lost when no run listens yet: an AbortSignal aborted before the run starts
 * still stops it, as a Ctrl+C pressed during start-up does.
 */
class StopSource extends EventEmitter implements SignalSource {
  private readonly sent: NodeJS.Signals[] = [];

  override emit(signal: NodeJS.Signals): boolean {
    this.sent.push(signal);
    return super.emit(signal, signal);
  }

  override on(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): this {
    super.on(event, listener);
    for (const signal of this.sent.filter((s) => s === event)) queueMicrotask(() => listener(signal));
    return this;
  }
}
