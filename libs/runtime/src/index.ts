/**
 * Every app's boot and life, one pattern: an `AppRuntime` (configuration, logger, tracing, metrics
 * registry, pool and migrations) provided to the app's Nest container, whose lifecycle hooks run
 * the ordered, bounded shutdown after the app's own.
 * - HTTP apps (ingestion, the console, the provider sandbox): `runHttpApp`.
 * - Kafka workers (verifier, ledger projector, sweeper, dispatcher): NestJS microservices on the
 *   Kafka batch transport; `WorkerModule.forRoot` adds Kafka, the schema registry, outbox relays,
 *   metrics and health endpoint; `@ConsumeBatches` declares each consumer loop on its handler;
 *   `runWorker` boots the app's module as the process's app.
 */
export * from './app.runtime.js';
export * from './http-app.js';
export * from './worker.options.js';
export * from './worker.module.js';
export * from './worker.runtime.js';
export * from './consume-batches.js';
export * from './kafka-batch.transport.js';
export * from './run-worker.js';
export * from './shutdown.js';
export * from './health.js';
