/**
 * The immutable ledger: the store port and its PostgreSQL, KurrentDB and in-memory stores; the
 * writer port the projector appends through, with its PostgreSQL and event-store writers; the
 * typed ledger events; their pure projection into read models and outbox messages.
 */
export * from './ports/ledger.port.js';
export * from './ports/ledger-writer.port.js';
export * from './chain/hash-chain.js';
export * from './chain/merkle-tree.js';
export * from './chain/signed-note.js';
export * from './chain/ledger-checkpoints.js';
export * from './event-store/memory-ledger.js';
export * from './postgres/postgres-ledger.js';
export * from './postgres/postgres-ledger-writer.js';
export * from './postgres/postgres-merkle-log.js';
export * from './event-store/event-store-ledger-writer.js';
export * from './event-store/kurrentdb-ledger.js';
export * from './open-ledger-store.js';
export * from './health.js';
export * from './projection/read-models.js';
export * from './projection/ledger-projection.js';
export * from './chain/verify-ledger.js';
export * from './events/transaction-outcome.js';
export * from './events/entitlement-granted.js';
export * from './events/entitlement-access.js';
export * from './events/money-movement.js';
export * from './events/mismatch-resolution.js';
export * from './events/admin-action.js';
export * from './events/unmatched-payment.js';
export * from './events/reconciliation.js';
export * from './events/ledger-checkpointed.js';
export * from './events/subject-erased.js';
export * from './projection/reconciliation-read-models.js';
export * from './projection/reconciliation-export.js';
export * from './checkpoints/checkpoint-sink.js';
export * from './checkpoints/checkpoint-key.js';
export * from './checkpoints/ledger-checkpointer.js';
export * from './checkpoints/published-checkpoints.js';
export * from './checkpoints/receipt-proofs.js';
export * from './privacy/subject-erasure.js';
export * from './privacy/missing-subject-keys.js';
