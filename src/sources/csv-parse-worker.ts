/** The worker thread of WorkerCsvRowParser: parses the blocks it is sent and answers with their rows. */
import { parentPort } from 'node:worker_threads';
import { createCsvParser, endParser, takeRows } from './csv-row-parser.js';

const parser = createCsvParser();
let queue = Promise.resolve();

parentPort!.on('message', (message: { bytes?: Uint8Array; end?: boolean }) => {
  // In order: the end must wait for every block before it.
  queue = queue.then(async () => {
    if (message.end) {
      parentPort!.postMessage(await endParser(parser));
      return;
    }
    parser.write(Buffer.from(message.bytes!.buffer, message.bytes!.byteOffset, message.bytes!.byteLength));
    parentPort!.postMessage(takeRows(parser));
  });
});
