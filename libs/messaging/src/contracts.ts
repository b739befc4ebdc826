/**
 * Integration events: the versioned contracts on Kafka. Each mirrors an Avro schema in
 * `libs/messaging/schemas/<Name>.v1.avsc` (the source of truth, registered in the schema
 * registry). Domain events are never published as they are.
 */

/** Fields every integration event carries. */
export interface Envelope {
  event_id: string;
  /** epoch ms */
  occurred_at: number;
  correlation_id: string;
  /** Transaction reference; also the Kafka message key. */
  reference: string;
}

export interface CheckoutRegisteredV1 extends Envelope {
  provider: string;
  /** minor units */
  amount_minor: number;
  currency: string;
  user_id: string;
  customer_email: string | null;
  customer_phone: string | null;
  entitlement: string;
  /** ISO 8601 duration the payment buys; `null` for registrations older than access periods. */
  access_period: string | null;
}

export type CheckoutCompletedV1 = Envelope;

export interface ProviderWebhookReceivedV1 extends Envelope {
  provider: string;
  provider_event_type: string;
  body_sha256: string;
}

export interface VerificationRequestedV1 extends Envelope {
  trigger: string;
  requested_by: string;
}

export interface ConsensusCheckV1 {
  check: string;
  passed: boolean;
  code: string | null;
  expected: string;
  observed: string;
}

export interface ConsensusResultV1 extends Envelope {
  causation_id: string;
  provider: string;
  trigger: string;
  verdict: string;
  provider_status: string | null;
  detail: string | null;
  outcome: 'SETTLED_CONSENSUS' | 'FAILED_DECLINED' | 'RECOVERING' | 'STATE_MISMATCH' | 'MANUAL_REVIEW' | 'UNCHANGED';
  ledger_event_type: string | null;
  ledger_expected_revision: number;
  state_before: string;
  state_after: string;
  entitlement_status: string;
  checks: ConsensusCheckV1[];
  amount_minor: number;
  currency: string;
  user_id: string;
  entitlement: string;
  observed_amount_minor: number | null;
  charged_amount_minor: number | null;
  observed_currency: string | null;
  provider_transaction_id: string | null;
  /** ISO 8601 duration the payment buys (from the registration); `null` when none was registered. */
  access_period: string | null;
}

export interface SettlementRecordedV1 extends Envelope {
  provider: string;
  outcome: string;
  state: string;
  entitlement_status: string;
  user_id: string;
  entitlement: string;
  amount_minor: number;
  currency: string;
  ledger_stream: string;
  ledger_revision: number;
  ledger_position: number;
}

/**
 * A settled payment granted access (topic `entitlement-events.v1`, keyed by `user_id`).
 * Times are ISO 8601 UTC strings with milliseconds, as the customer's payload carries them.
 */
export interface EntitlementGrantedV1 extends Envelope {
  event: 'subscription_started' | 'subscription_renewed';
  user_id: string;
  entitlement: string;
  expires_at: string;
  previous_expires_at: string | null;
  starts_at: string;
  settled_at: string;
  access_period: string;
  ledger_stream: string;
  ledger_revision: number;
  ledger_position: number;
}

/**
 * An entitlement event was given up for one customer endpoint after every attempt of the
 * retry schedule (topic `delivery-dead-letter.v1`, keyed by `endpoint_id`).
 */
export interface DeliveryDeadLetteredV1 extends Envelope {
  entitlement_event_id: string;
  endpoint_id: string;
  endpoint_url: string;
  user_id: string;
  event: string;
  attempts: number;
  /** epoch ms */
  first_attempt_at: number;
  last_status: number | null;
  last_error: string | null;
  /** The exact JSON body that was signed and sent. */
  payload: string;
}

/** Every contract by its record name. */
export interface ContractMap {
  CheckoutRegistered: CheckoutRegisteredV1;
  CheckoutCompleted: CheckoutCompletedV1;
  ProviderWebhookReceived: ProviderWebhookReceivedV1;
  VerificationRequested: VerificationRequestedV1;
  ConsensusResult: ConsensusResultV1;
  SettlementRecorded: SettlementRecordedV1;
  EntitlementGranted: EntitlementGrantedV1;
  DeliveryDeadLettered: DeliveryDeadLetteredV1;
}

/** Record name of a contract. */
export type EventType = keyof ContractMap;

/** Every record name, in a stable order. */
export const EVENT_TYPES: readonly EventType[] = [
  'CheckoutRegistered',
  'CheckoutCompleted',
  'ProviderWebhookReceived',
  'VerificationRequested',
  'ConsensusResult',
  'SettlementRecorded',
  'EntitlementGranted',
  'DeliveryDeadLettered',
];

/** A decoded message: its record name and payload, narrowed together. */
export type TypedEvent = { [K in EventType]: { type: K; payload: ContractMap[K] } }[EventType];
