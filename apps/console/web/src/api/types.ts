// The console API's contract (docs/console.md): the shapes apps/console answers under /api/v1.
// The front end knows Settle only through these; test/contract.unit.spec.ts keeps the closed
// lists equal to libs/domain's.

/** Transaction states (docs/spec.md, section 3), in the order the Overview shows them. */
export const STATES = ['PENDING', 'RECOVERING', 'MANUAL_REVIEW', 'SETTLED_CONSENSUS', 'FAILED_DECLINED', 'STATE_MISMATCH'] as const;
/** One of {@link STATES}. */
export type TransactionState = (typeof STATES)[number];

/** Entitlement statuses (docs/spec.md, section 2). */
export const ENTITLEMENT_STATUSES = ['LOCKED', 'UNLOCKED', 'HELD_IN_REVIEW'] as const;
/** One of {@link ENTITLEMENT_STATUSES}. */
export type EntitlementStatus = (typeof ENTITLEMENT_STATUSES)[number];

/** Payment providers Settle verifies against. */
export const PROVIDERS = ['paystack', 'stripe', 'flutterwave', 'mpesa'] as const;

/** The four points of the consensus checklist (docs/spec.md, section 3), in the spec's order. */
export const CHECK_NAMES = ['transaction_identity', 'currency', 'amount', 'customer'] as const;

/** Console roles: viewers read, operators also reconcile, admins also manage users. */
export type Role = 'viewer' | 'operator' | 'admin';

/** The signed-in user. */
export interface SessionUser {
  email: string;
  role: Role;
}

/** Answer of `POST` and `GET /api/v1/session`. */
export interface Session {
  user: SessionUser;
  /** Sent back as `x-csrf-token` on every state-changing request. */
  csrfToken: string;
}

/**
 * A figure the console reads from Kafka: read (with when), not read this time (the brokers did
 * not answer; the rest of the Overview still did), or not configured (no `KAFKA_BROKERS`).
 */
export type KafkaReading<T> =
  ({ status: 'ok'; checkedAt: string } & T) | { status: 'unavailable'; code: string; detail: string; checkedAt: string } | { status: 'not_configured' };

/** Records stored in one dead-letter topic. */
export interface DeadLetterTopic {
  topic: string;
  /** `messages` no consumer could process; `deliveries` the dispatcher gave up for an endpoint. */
  kind: 'messages' | 'deliveries';
  records: number;
  /** Whether the topic exists yet. */
  exists: boolean;
  partitions: Array<{ partition: number; low: number; high: number; records: number }>;
}

/** One partition of a consumer group's lag. */
export interface PartitionLag {
  topic: string;
  partition: number;
  /** `null` when the group has committed nothing there. */
  committedOffset: number | null;
  endOffset: number;
  lag: number;
}

/** A worker's consumer group and how far behind it is. */
export interface ConsumerGroupLag {
  worker: string;
  groupId: string;
  topics: string[];
  /** As the group coordinator says: `Stable`, `Empty`, `PreparingRebalance`, `Dead`, ... */
  state: string;
  members: number;
  lag: number;
  partitions: PartitionLag[];
}

/** Why the ledger's hash chains do not hold (docs/ledger.md, "Tamper evidence"; docs/console.md). */
export type ChainBreakReason =
  'STREAM_HASH_MISMATCH' | 'GLOBAL_HASH_MISMATCH' | 'POSITION_GAP' | 'REVISION_GAP' | 'HEAD_MISMATCH' | 'CHECKPOINT_MISSING' | 'CHECKPOINT_MISMATCH';

/** The ledger's hash-chain status, as the console's own verification last found it. */
export type LedgerChains =
  | { status: 'verified'; position: number; globalHash: string; verifiedAt: string; eventsChecked: number; lastFullVerificationAt: string | null }
  | {
      status: 'broken';
      position: number;
      reason: ChainBreakReason;
      streamId: string | null;
      revision: number | null;
      checkedAt: string;
      lastVerifiedPosition: number;
    }
  | { status: 'pending' }
  | { status: 'not_applicable'; detail: string };

/** Answer of `GET /api/v1/overview`: counts of transactions, dead letters, consumer lag and the ledger's chains. */
export interface Overview {
  states: Partial<Record<string, number>>;
  entitlements: Partial<Record<string, number>>;
  /** The held-in-review queue's size (state `RECOVERING`, entitlement `HELD_IN_REVIEW`). */
  heldInReview: number;
  manualReview: number;
  stateMismatch: number;
  total: number;
  /** Deliveries the dispatcher gave up (state `failed`). */
  deadLetteredDeliveries: number;
  deadLetteredMessages: KafkaReading<{ total: number; topics: DeadLetterTopic[] }>;
  consumerLag: KafkaReading<{ total: number; groups: ConsumerGroupLag[] }>;
  ledgerChains: LedgerChains;
}

/** A row of `GET /api/v1/transactions`. */
export interface TransactionSummary {
  reference: string;
  provider: string;
  state: string;
  entitlementStatus: string;
  /** Integer amount in the currency's minor unit (kobo, cents). */
  amountMinor: number;
  /** ISO 4217 code. */
  currency: string;
  userId: string | null;
  email: string | null;
  /** ISO 8601 timestamp. */
  updatedAt: string;
}

/** Answer of `GET /api/v1/transactions`, newest first. */
export interface TransactionPage {
  items: TransactionSummary[];
  /** Opaque; `null` on the last page. */
  nextCursor: string | null;
}

/** One point of the consensus checklist as the last verification saw it. */
export interface CheckResult {
  check: string;
  passed: boolean;
  /** The failure's code (`CONSENSUS.AMOUNT_MISMATCH`), `null` when it passed. */
  code: string | null;
  expected: string;
  observed: string;
  /** The provider answer's field the observed value was read from; `null` when unknown. */
  providerField?: string | null;
}

/** The transaction of `GET /api/v1/transactions/:reference`. */
export interface TransactionDetail extends TransactionSummary {
  entitlement: string | null;
  /** How long the entitlement runs, as the checkout registered it (for example `P30D`), or `null`. */
  accessPeriod: string | null;
  /** `null` while no verification has decided. */
  checks: CheckResult[] | null;
  lastVerdict: string | null;
  lastTrigger: string | null;
}

/** An event of the transaction's ledger stream. */
export interface TimelineEntry {
  /** Position in the ledger (global order). */
  position: number;
  /** Revision within the transaction's stream, from 0. */
  revision: number;
  type: string;
  /** ISO 8601 timestamp. */
  recordedAt: string;
  trigger: string | null;
  verdict: string | null;
  state: string | null;
  detail: string | null;
  /** Who asked for it: only on the admin actions merged into the timeline (`AdminActionRequested`). */
  actor?: { email: string; role: string };
  /** The admin action's name and outcome; `outcome` is `null` while it is not recorded. */
  adminAction?: { action: string; outcome: AdminOutcome | null; errorCode: string | null; completedAt: string | null };
}

/** How an admin action ended. */
export type AdminOutcome = 'succeeded' | 'failed';

/** What an admin action acts on (libs/ledger's `ADMIN_TARGET_KINDS`). */
export const ADMIN_TARGET_KINDS = ['transaction', 'event', 'endpoint', 'user'] as const;
/** One of {@link ADMIN_TARGET_KINDS}. */
export type AdminTargetKind = (typeof ADMIN_TARGET_KINDS)[number];

/** Console roles, weakest first. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;

/** A row of `GET /api/v1/audit`: one admin action with its outcome. */
export interface AuditEntry {
  actionId: string;
  /** `transaction.reconcile`, `user.create`, `user.update`, ... */
  action: string;
  actor: { email: string; role: string };
  target: { kind: AdminTargetKind; id: string };
  /** What it was asked with; never a secret. */
  parameters: Record<string, unknown>;
  /** ISO 8601 timestamp. */
  requestedAt: string;
  /** `null` when no outcome is recorded (still running, or the console stopped meanwhile). */
  outcome: AdminOutcome | null;
  /** The failure's code. */
  errorCode: string | null;
  result: Record<string, unknown> | null;
  completedAt: string | null;
  /** Ledger position of the request. */
  position: number;
}

/** Answer of `GET /api/v1/audit`, newest first. */
export interface AuditPage {
  items: AuditEntry[];
  /** Opaque; `null` on the last page. */
  nextCursor: string | null;
}

/** The audit view's filters, as they stand in the page's query string. */
export interface AuditFilters {
  actor: string;
  targetKind: string;
  targetId: string;
}

/** A row of `GET /api/v1/users`. */
export interface ConsoleUser {
  email: string;
  role: Role;
  disabled: boolean;
  /** ISO 8601 timestamp. */
  createdAt: string;
  /** ISO 8601 timestamp; `null` when the user never signed in. */
  lastSignInAt: string | null;
}

/** Answer of `POST /api/v1/users` and of a password reset: the user and the generated password, shown once. */
export interface UserWithPassword {
  user: ConsoleUser;
  password: string;
}

/** The sweeper's watch of a transaction: its next automatic re-check. */
export interface Watch {
  /** ISO 8601 timestamp of the next re-check; `null` when none is scheduled. */
  nextCheckAt: string | null;
  /** Re-checks the sweeper made since the latest progress. */
  checksSoFar: number;
  /** Whether a re-check is scheduled. */
  active: boolean;
}

/** One attempt to deliver an entitlement event to an endpoint. */
export interface DeliveryAttempt {
  /** ISO 8601 timestamp of the attempt's start. */
  at: string;
  /** `delivered`, `gone`, `throttled` or `failed`. */
  outcome: string;
  /** The endpoint's HTTP status; `null` when none came. */
  httpStatus: number | null;
  /** Milliseconds. */
  durationMs: number;
}

/** One delivery of an entitlement event to a customer endpoint. */
export interface Delivery {
  endpointId: string;
  endpointUrl: string;
  /** `pending`, `delivered`, `failed` or `cancelled`. */
  status: string;
  /** Oldest first. */
  attempts: DeliveryAttempt[];
}

/** An entitlement event of the transaction as the dispatcher recorded it. */
export interface EntitlementEvent {
  eventId: string;
  event: string;
  /** ISO 8601 timestamp; `null` when unknown. */
  expiresAt: string | null;
  deliveries: Delivery[];
}

/** Answer of `GET /api/v1/transactions/:reference`. */
export interface TransactionView {
  transaction: TransactionDetail;
  timeline: TimelineEntry[];
  /** `null` when the sweeper does not watch the transaction. */
  watch: Watch | null;
  /** Oldest first; empty when none. */
  entitlementEvents: EntitlementEvent[];
}

/** A row of `GET /api/v1/queues/held-in-review`. */
export interface HeldInReviewItem extends TransactionSummary {
  /** ISO 8601 timestamp of the sweeper's next re-check; `null` when none is scheduled. */
  nextCheckAt: string | null;
  checksSoFar: number;
}

/** A row of `GET /api/v1/queues/manual-review`, with why it waits for a person. */
export interface ManualReviewItem extends TransactionSummary {
  lastVerdict: string | null;
  lastTrigger: string | null;
  checksSoFar: number;
  /** The last event of the ledger stream; `null` when there is none. */
  lastEvent: { type: string; recordedAt: string; detail: string | null } | null;
}

/** A failed checklist point of a State Mismatch, with the provider field the observed value came from. */
export interface MismatchCheck {
  check: string;
  code: string | null;
  expected: string;
  observed: string;
  providerField: string | null;
}

/** A row of the State Mismatch queue. */
export interface StateMismatchItem extends TransactionSummary {
  failedChecks: MismatchCheck[];
}

/** A page of a review queue, oldest first. */
export interface QueuePage<T> {
  items: T[];
  /** Opaque; `null` on the last page. */
  nextCursor: string | null;
}

/** Answer of `POST /api/v1/transactions/:reference/reconcile` (202). */
export interface ReconcileAccepted {
  reference: string;
  state: string;
}

/** The filters of the transactions list, as they stand in the page's query string. */
export interface TransactionFilters {
  q: string;
  provider: string;
  state: string;
  entitlement: string;
  /** Last changed at or after, ISO 8601 UTC; `''` or absent for no bound. */
  from?: string;
  /** Last changed before, ISO 8601 UTC; `''` or absent for no bound. */
  to?: string;
}

/** States of a delivery (one entitlement event to one endpoint); `failed` is dead-lettered (its retries exhausted). */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
/** One of {@link DELIVERY_STATES}. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A customer endpoint of `GET /api/v1/endpoints` (never its signing secret). */
export interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  eventKinds: string[];
  enabled: boolean;
  /** `admin`, `gone` (it answered 410) or `failing` (failing continuously); `null` while enabled. */
  disabledReason: string | null;
  /** ISO 8601 timestamp; `null` while enabled. */
  disabledAt: string | null;
  /** Start of its current run of failures, ISO 8601; `null` when it is not failing. */
  failingSince: string | null;
  /** End of a secret rotation's overlap, ISO 8601; `null` when none. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A delivery of `GET /api/v1/deliveries` and of an endpoint's recent deliveries. */
export interface DeliveryItem {
  deliveryId: number;
  eventId: string;
  event: string;
  userId: string;
  endpointId: string;
  /** `null` when the endpoint was deleted since. */
  endpointUrl: string | null;
  state: DeliveryState;
  attemptCount: number;
  /** ISO 8601, while pending. */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  lastStatus: number | null;
  /** The last attempt's error code (`HTTP_500`, `TIMEOUT`). */
  lastError: string | null;
  recordedAt: string;
}

/** One attempt of `GET /api/v1/events/:eventId/deliveries`. */
export interface AttemptDetail {
  attempt: number;
  /** ISO 8601 start of the attempt. */
  at: string;
  /** `delivered`, `gone`, `throttled` or `failed`. */
  outcome: string;
  httpStatus: number | null;
  /** Milliseconds. */
  durationMs: number;
  error: string | null;
  /** At most 512 characters of the endpoint's answer, secrets redacted. */
  responseExcerpt: string | null;
  nextAttemptAt: string | null;
}

/** A delivery with every attempt, oldest first. */
export interface DeliveryWithAttempts extends DeliveryItem {
  attempts: AttemptDetail[];
}

/** Answer of `GET /api/v1/deliveries`, newest first. */
export interface DeliveryPage {
  items: DeliveryItem[];
  /** Opaque; `null` on the last page. */
  nextCursor: string | null;
}

/** Answer of `GET /api/v1/endpoints/:id`. */
export interface EndpointDetail {
  endpoint: Endpoint;
  /** Newest first, at most 20. */
  recentDeliveries: DeliveryItem[];
}

/** Answer of `GET /api/v1/events/:eventId/deliveries`. */
export interface EventDeliveries {
  eventId: string;
  deliveries: DeliveryWithAttempts[];
}

/** Answer of `POST /api/v1/events/:eventId/resend`. */
export interface ResendAccepted {
  eventId: string;
  requeued: number;
}

/** Answer of `POST /api/v1/endpoints/:id/recover`. */
export interface RecoverAccepted {
  endpointId: string;
  since: string;
  requeued: number;
}
