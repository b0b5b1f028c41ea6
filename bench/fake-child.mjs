// A live source's fake in its own process for the bench's pull section, so its CPU and memory are not
// the pull's: `node bench/fake-child.mjs <source> '<options as JSON>'` prints one JSON line (`url`, `env`)
// once it listens, and stops on SIGTERM. The fakes are test doubles under test/fakes/ (never shipped).
import { startFake } from '../test/fakes/dist/index.js';

const [source, options = '{}'] = process.argv.slice(2);
const fake = await startFake(/** @type {any} */ (source), JSON.parse(options));
process.once('SIGTERM', () => fake.close());
process.once('SIGINT', () => fake.close());
const { url, port, env } = fake;
process.stdout.write(`${JSON.stringify({ url, port, source, env })}\n`);
