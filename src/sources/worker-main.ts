/**
 * The entry of every worker thread (worker-thread.ts starts it): loads the job module it was given,
 * then answers each message in turn. Answers keep the order of the messages even when a job's
 * answer is a promise. A job that throws ends the thread; the host sees it as a failure.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { JobStart, StartJob, WorkerJob } from './worker-job.js';

const start = workerData as JobStart;
const port = parentPort!;
const ready: Promise<WorkerJob<unknown, unknown>> = import(start.job).then(
  (module: { startJob: StartJob<unknown, unknown> }) => module.startJob(start.data),
);
let queue: Promise<unknown> = ready;

// Listening at once: messages sent while the job module loads wait in the queue.
port.on('message', (message: unknown) => {
  queue = queue.then(async () => {
    const job = await ready;
    const answer = await job.take(message);
    port.postMessage(answer, job.transferOf?.(answer));
  });
  // An unhandled rejection ends the thread with an 'error' event, which the host turns into a failure.
});
