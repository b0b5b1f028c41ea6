/**
 * The local sandbox of the `v3.0/data_import` API: the same contract as the hosted service
 * (docs/api-contract.md), plus seeded faults, so the client's retry, resume and split logic can be tested
 * and benchmarked without touching a real app.
 */
export { startSandbox } from './server.js';
export { mulberry32 } from './fault-plan.js';
export type {
  EntityStats,
  FaultName,
  SandboxExchangeReply,
  SandboxExchangeRequest,
  SandboxFaults,
  SandboxHandle,
  SandboxOptions,
  SandboxRecords,
  SandboxStats,
} from './types.js';

/** The key the demo and the docs use against a local sandbox; never a real service key. */
export { SANDBOX_DEFAULT_API_KEY } from './default-key.js';
