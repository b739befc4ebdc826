/**
 * The immutable ledger: the store port and its PostgreSQL, KurrentDB and in-memory stores; the
 * writer port the projector appends through, with its PostgreSQL and event-store writers; the
 * typed ledger events; their pure projection into read models and outbox messages.
 */
export * from './ledger.port.js';
export * from './ledger-writer.port.js';
export * from './hash-chain.js';
export * from './memory-ledger.js';
export * from './postgres-ledger.js';
export * from './postgres-ledger-writer.js';
export * from './event-store-ledger-writer.js';
export * from './kurrentdb-ledger.js';
export * from './open-ledger-store.js';
export * from './read-model.js';
export * from './ledger-projection.js';
export * from './verify-ledger.js';
export * from './transaction-outcome-event.js';
export * from './entitlement-events.js';
