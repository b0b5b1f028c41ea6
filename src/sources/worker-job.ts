/**
 * What a job run in a worker thread looks like (see worker-thread.ts). A job module exports
 * `startJob(data)`; both the thread's entry and the host import only these types, so neither
 * imports the other.
 */
import type { Transferable } from 'node:worker_threads';

export interface WorkerJob<In, Out> {
  /** Answers one message; messages are taken one at a time, in the order they were sent. */
  take(message: In): Out | Promise<Out>;
  /** What of an answer moves to the host instead of being copied (its buffers). */
  transferOf?(answer: Out): Transferable[];
}

/** The export every job module has: builds the job from the data the host started it with. */
export type StartJob<In, Out> = (data: unknown) => WorkerJob<In, Out>;

/** What the entry gets as `workerData`. */
export interface JobStart {
  /** URL of the built job module. */
  job: string;
  data: unknown;
}
