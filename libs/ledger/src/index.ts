/** The immutable ledger: the port, its PostgreSQL and in-memory stores, and the read model. */
export * from './ledger.port.js';
export * from './hash-chain.js';
export * from './memory-ledger.js';
export * from './postgres-ledger.js';
export * from './read-model.js';
export * from './kurrentdb-ledger.js';
export * from './verify-ledger.js';
export * from './entitlement-events.js';
