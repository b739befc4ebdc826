/**
 * The pure domain of Settle: no NestJS, Kafka, database or HTTP code. Time and ids come in
 * with commands, so everything here is deterministic and testable without a clock.
 */
export * from './shared/errors.js';
export * from './shared/money.js';
export * from './privacy/masking.js';
export * from './privacy/subjects.js';
export * from './transaction/types.js';
export * from './transaction/terms.js';
export * from './transaction/verdict.js';
export * from './transaction/consensus.js';
export * from './transaction/events.js';
export * from './transaction/commands.js';
export * from './transaction/decider.js';
export * from './transaction/attempts.js';
export * from './transaction/coalescing.js';
export * from './recovery/watch.js';
export * from './entitlement/access-period.js';
export * from './entitlement/grant.js';
export * from './delivery/attempt.js';
export * from './delivery/retry-schedule.js';
export * from './delivery/endpoint-health.js';
export * from './reconciliation/classify.js';
export * from './approval/approval.js';
export * from './reconciliation/scope.js';
export * from './reconciliation/page.js';
export * from './reconciliation/schedule.js';
export * from './unmatched/unmatched-payment.js';
export * from './after-settlement/movement.js';
export * from './after-settlement/decider.js';
export * from './after-settlement/access.js';
export * from './mismatch/resolution.js';
