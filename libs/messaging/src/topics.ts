import type { EventType } from './contracts.js';

/**
 * Topic names. Every message is keyed by transaction reference, so all events of one
 * transaction land on one partition, in order; entitlement events are keyed by user, so all
 * of one user's grants land on one partition, in order.
 */
export interface Topics {
  /** Checkout registrations and completions, verified webhooks, verification requests, operators closing unmatched payments, reconciliation requests. */
  transactionEvents: string;
  /**
   * The verifier's decisions: consensus results, what providers showed about settled payments' money, its answers about unmatched payments,
   * reconciliation runs and exceptions; and operators' resolutions of State Mismatches (a decision about a consensus, for the ledger projector).
   */
  consensusResults: string;
  /** Outcomes, settlements by override and money facts (refunds, reversals, disputes) committed to the ledger, for downstream subscribers. */
  settlements: string;
  /** Access granted by settled payments, and revoked or reinstated when their money moves, keyed by user, for delivery to customer endpoints. */
  entitlementEvents: string;
  /** Entitlement events given up for a customer endpoint after every retry, keyed by endpoint. */
  deliveryDeadLetter: string;
  /** Records no consumer could process, with the error in headers. */
  deadLetter: string;
  /**
   * Inbound: commands of upstream checkout services (register, complete, verify a checkout),
   * keyed by reference; the Kafka twin of the checkout API (docs/api.md, "Two ways in").
   */
  checkoutCommands: string;
  /** Settle's answer to each checkout command (accepted, duplicate, refused, verified), keyed by reference; kept {@link CHECKOUT_RESULTS_RETENTION_MS}. */
  checkoutResults: string;
  /**
   * The ledger's signed checkpoints (docs/ledger.md, "Checkpoints"), keyed by origin on a compacted
   * topic ({@link topicConfig}): it always holds the latest checkpoint of each ledger, for auditors,
   * monitors and customers who keep the ones they saw.
   */
  ledgerCheckpoints: string;
}

/** Topic names under a prefix (`settle` by default). */
export function topicNames(prefix: string): Topics {
  return {
    transactionEvents: `${prefix}.transaction-events.v1`,
    consensusResults: `${prefix}.consensus-results.v1`,
    settlements: `${prefix}.settlements.v1`,
    entitlementEvents: `${prefix}.entitlement-events.v1`,
    deliveryDeadLetter: `${prefix}.delivery-dead-letter.v1`,
    deadLetter: `${prefix}.dead-letter.v1`,
    checkoutCommands: `${prefix}.checkout-commands.v1`,
    checkoutResults: `${prefix}.checkout-results.v1`,
    ledgerCheckpoints: `${prefix}.ledger-checkpoints.v1`,
  };
}

/** Which topic each event type is published on. */
export function topicFor(topics: Topics, type: EventType): string {
  switch (type) {
    case 'CheckoutRegistered':
    case 'CheckoutCompleted':
    case 'ProviderWebhookReceived':
    case 'VerificationRequested':
    case 'UnmatchedPaymentCloseRequested':
    case 'ReconciliationRunRequested':
    case 'ReconciliationExceptionResolveRequested':
      return topics.transactionEvents;
    case 'ConsensusResult':
    case 'UnmatchedPaymentObserved':
    case 'ReconciliationRunRecorded':
    case 'ReconciliationExceptionObserved':
    case 'MoneyMovementsObserved':
    case 'MismatchResolutionRequested':
      return topics.consensusResults;
    case 'SettlementRecorded':
    case 'MoneyMovementRecorded':
    case 'SettledByOverride':
      return topics.settlements;
    case 'EntitlementGranted':
    case 'EntitlementAccessChanged':
      return topics.entitlementEvents;
    case 'DeliveryDeadLettered':
      return topics.deliveryDeadLetter;
    case 'RegisterCheckout':
    case 'CompleteCheckout':
    case 'VerifyCheckout':
      return topics.checkoutCommands;
    case 'CheckoutCommandResult':
      return topics.checkoutResults;
    case 'LedgerCheckpointed':
      return topics.ledgerCheckpoints;
  }
}

/**
 * How long the results topic keeps a result, milliseconds: 7 days. Nothing in Settle waits for a
 * result to be read; one nobody reads is deleted with its segment after this, and the checkout's
 * state stays readable at `GET /v1/checkouts/{reference}` (docs/api.md, "Two ways in").
 */
export const CHECKOUT_RESULTS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How long the topics that carry a payer's email or phone in plaintext keep a record,
 * milliseconds: 7 days (docs/privacy.md, "Retention a deployment must set"). They are
 * `transaction-events` (`CheckoutRegistered`), `checkout-commands` (`RegisterCheckout`, written by
 * the merchant's own producers) and the dead-letter topic (a copy of any record). Settle sets it
 * explicitly when it creates them, so a broker whose default keeps records longer (or forever)
 * still deletes them; an erasure reaches them when this passes. What the verifier emits
 * (`consensus-results`) and everything after it holds the payer's data sealed or masked only.
 */
export const PERSONAL_DATA_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Topic settings Settle sets when it creates a topic (Kafka's `configEntries`), beside the broker's defaults. */
export function topicConfig(topics: Topics, topic: string): Array<{ name: string; value: string }> {
  if (topic === topics.checkoutResults) return [{ name: 'retention.ms', value: String(CHECKOUT_RESULTS_RETENTION_MS) }];
  if (topic === topics.transactionEvents || topic === topics.checkoutCommands || topic === topics.deadLetter) {
    return [{ name: 'retention.ms', value: String(PERSONAL_DATA_RETENTION_MS) }];
  }
  // Compacted: the latest checkpoint of each origin stays, however old; the history is in the checkpoint sink.
  if (topic === topics.ledgerCheckpoints) return [{ name: 'cleanup.policy', value: 'compact' }];
  return [];
}

/** Partitions per topic on a fresh cluster. */
export const DEFAULT_PARTITIONS = 6;
