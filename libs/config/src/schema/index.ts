/** One zod schema per app (docs/operations.md, "Configuration"), each in its app's file; what they share in shared.ts. */
export {
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  sharedEnv,
  blankIsUnset,
  int,
  optionalSecret,
  optionalUrl,
  secret,
  url,
  toShared,
  toWorker,
  type SharedConfig,
  type WorkerConfig,
  type WorkerTuningDefaults,
} from './shared.js';
export * from './ingestion.js';
export * from './verifier.js';
export * from './ledger-store.js';
export * from './sweeper.js';
export * from './dispatcher.js';
export * from './sandbox.js';
export * from './console.js';
