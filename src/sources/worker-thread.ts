/**
 * The one owner of worker threads: starts a thread running a job module (worker-main.ts loads it),
 * sends it messages (moving their buffers rather than copying them), hands back its answers in the
 * order the messages went, turns a thread that fails or stops into a rejected answer, and ends it.
 * Used by CSV parsing (csv-row-parser.ts) and validate's shared NDJSON reading (checked-messages.ts).
 */
import { Worker, type Transferable } from 'node:worker_threads';
import type { JobStart } from './worker-job.js';

export interface WorkerThreadOptions {
  /** Names the thread in the failure a stopped thread gives ("the CSV parser thread stopped"). */
  name: string;
  data?: unknown;
}

export class WorkerThread<In, Out> {
  private readonly worker: Worker;
  private readonly waiting: Array<{ resolve: (answer: Out) => void; reject: (error: Error) => void }> = [];
  private failure: Error | undefined;

  /** `job`: the built job module, e.g. `new URL('./csv-parse-job.js', import.meta.url)`. */
  constructor(job: URL, options: WorkerThreadOptions) {
    const start: JobStart = { job: job.href, data: options.data };
    this.worker = new Worker(new URL('./worker-main.js', import.meta.url), {
      workerData: start,
      // Its own heap, counted in the run's 150 MB: a small young generation (8 MB took validate to 146).
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    this.worker.on('message', (answer: Out) => this.waiting.shift()?.resolve(answer));
    this.worker.on('error', (error: Error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error(`the ${options.name} thread stopped`)));
  }

  /** Sends a message; `transfer` lists the buffers that move with it (the sender must not touch them after). */
  send(message: In, transfer?: Transferable[]): Promise<Out> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(message, transfer);
    });
  }

  /** Ends the thread. Answers still awaited are dropped, never settled: the reading they were for is over. */
  terminate(): void {
    this.waiting.length = 0;
    this.worker.removeAllListeners();
    this.worker.on('error', () => {}); // an error of a thread being ended is no one's to see
    void this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}
