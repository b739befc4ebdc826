/**
 * Kafka and schema-registry wiring: versioned contracts, Avro codec, idempotent producers,
 * the owned consumer loop with its dead-letter topic, and the transactional outbox.
 */
export * from './contracts.js';
export * from './topics.js';
export * from './headers.js';
export * from './trace-context.js';
export * from './codec.js';
export * from './schema-evolution.js';
export * from './kafka.js';
export * from './kafkajs-idle-timer.js';
export * from './handler.js';
export * from './consumer.js';
export * from './consumer-state.js';
export * from './health.js';
export * from './log-fields.js';
export * from './outbox.js';
export * from './connect.js';
export * from './co-partitioned.assigner.js';
export * from './group-commit.js';
export * from './metrics.js';
