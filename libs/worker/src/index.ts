/**
 * The worker runtime: one boot and shutdown sequence for every Kafka worker app (configuration,
 * logger, pool, migrations, Kafka and the schema registry, outbox relays, consumer loops,
 * metrics and health endpoint, ready file, ordered graceful shutdown). Each worker's `main.ts` declares
 * what it owns and builds its services in `setup`.
 */
export * from './worker.definition.js';
export * from './runtime.js';
export * from './shutdown.js';
export * from './health.js';
