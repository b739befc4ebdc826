// The console API's contract (docs/console.md): the shapes apps/console answers under /api/v1,
// named for the pages. Every answer's shape is generated from docs/api/console-openapi.json
// (./generated/console-api.ts, `npm run openapi`); this file only names parts of it, for the pages
// that share them (a new page needs no name here: `call` types its answer, `Answer` names it). The
// closed lists are the document's own enums, generated with it (a provider, state or role added to
// the domain reaches the pages with `npm run openapi`); test/contract.unit.spec.ts keeps them equal
// to libs/domain's, in the domain's order, which is the pages' display order.
import {
  pathsApiV1AuditGetParametersQueryTargetKindValues,
  pathsApiV1DeliveriesGetParametersQueryStateValues,
  pathsApiV1TransactionsGetParametersQueryEntitlementValues,
  pathsApiV1TransactionsGetParametersQueryProviderValues,
  pathsApiV1TransactionsGetParametersQueryStateValues,
  pathsApiV1UsersPostRequestBodyContentApplicationJsonRoleValues,
  type paths,
} from './generated/console-api';

/** Transaction states (docs/spec.md, section 3), in the order the Overview shows them: the Transactions filter's. */
export const STATES = pathsApiV1TransactionsGetParametersQueryStateValues;
/** Entitlement statuses (docs/spec.md, section 2): the Transactions filter's. */
export const ENTITLEMENT_STATUSES = pathsApiV1TransactionsGetParametersQueryEntitlementValues;
/** Payment providers Settle verifies against: the Transactions filter's. */
export const PROVIDERS = pathsApiV1TransactionsGetParametersQueryProviderValues;

/** The four points of the consensus checklist (docs/spec.md, section 3), in the spec's order. */
export const CHECK_NAMES = ['transaction_identity', 'currency', 'amount', 'customer'] as const;

/** Console roles, weakest first: viewers read, operators also reconcile, admins also manage users. */
export const ROLES = pathsApiV1UsersPostRequestBodyContentApplicationJsonRoleValues;

/** What an admin action acts on (libs/ledger's `ADMIN_TARGET_KINDS`). */
export const ADMIN_TARGET_KINDS = pathsApiV1AuditGetParametersQueryTargetKindValues;

/** States of a delivery (one entitlement event to one endpoint); `failed` is dead-lettered (its retries exhausted). */
export const DELIVERY_STATES = pathsApiV1DeliveriesGetParametersQueryStateValues;

/** The HTTP methods of the console API, as the document names them. */
export type Method = 'get' | 'post' | 'patch' | 'delete';
/**
 * The JSON body of an operation's success answer (its 200, 201 or 202), as the document states
 * it: `Answer<'/api/v1/overview', 'get'>`. A page reads its answer's type from here, or from
 * what `call` returns, rather than naming it in this file.
 */
export type Answer<P extends keyof paths, M extends Method> =
  NonNullable<paths[P][M]> extends { responses: infer R }
    ? { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { 'application/json': infer B } } ? B : never) : never }[keyof R]
    : never;
/**
 * The JSON body an operation takes, as the document states it:
 * `Body<'/api/v1/unmatched-payments/{reference}/match-proposals', 'post'>`.
 */
export type Body<P extends keyof paths, M extends Method> =
  NonNullable<paths[P][M]> extends { requestBody?: infer R } ? (NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never) : never;
/** The element type of an array type (a row of a page's `items`). */
export type Item<T> = T extends ReadonlyArray<infer I> ? I : never;

/** Answer of `POST` and `GET /api/v1/session`; `csrfToken` goes back as `x-csrf-token` on every state-changing request. */
export type Session = Answer<'/api/v1/session', 'get'>;
/** The signed-in user. */
export type SessionUser = Session['user'];
/** One of {@link ROLES}. */
export type Role = SessionUser['role'];

/** Answer of `GET /api/v1/overview`: counts of transactions, dead letters, consumer lag and the ledger's chains. */
export type Overview = Answer<'/api/v1/overview', 'get'>;
/**
 * A figure the console reads from Kafka: read (with when), not read this time (the brokers did
 * not answer; the rest of the Overview still did), or not configured (no `KAFKA_BROKERS`).
 */
export type KafkaReading<T> =
  ({ status: 'ok'; checkedAt: string } & T) | { status: 'unavailable'; code: string; detail: string; checkedAt: string } | { status: 'not_configured' };
/** Records stored in one dead-letter topic. */
export type DeadLetterTopic = Item<Extract<Overview['deadLetteredMessages'], { status: 'ok' }>['topics']>;
/** A worker's consumer group and how far behind it is. */
export type ConsumerGroupLag = Item<Extract<Overview['consumerLag'], { status: 'ok' }>['groups']>;
/** One partition of a consumer group's lag. */
export type PartitionLag = Item<ConsumerGroupLag['partitions']>;
/** The ledger's hash-chain status, as the console's own verification last found it. */
export type LedgerChains = Overview['ledgerChains'];
/** Why the ledger's hash chains do not hold (docs/ledger.md, "Tamper evidence"; docs/console.md). */
export type ChainBreakReason = Extract<LedgerChains, { status: 'broken' }>['reason'];

/** Answer of `GET /api/v1/transactions`, newest first; `nextCursor` is `null` on the last page. */
export type TransactionPage = Answer<'/api/v1/transactions', 'get'>;
/** A row of `GET /api/v1/transactions`; `amountMinor` is an integer in the currency's minor unit. */
export type TransactionSummary = Item<TransactionPage['items']>;
/** One of {@link STATES}. */
export type TransactionState = (typeof STATES)[number];
/** One of {@link ENTITLEMENT_STATUSES}. */
export type EntitlementStatus = (typeof ENTITLEMENT_STATUSES)[number];

/** Answer of `GET /api/v1/transactions/:reference`. */
export type TransactionView = Answer<'/api/v1/transactions/{reference}', 'get'>;
/** The transaction of {@link TransactionView}. */
export type TransactionDetail = TransactionView['transaction'];
/** One point of the consensus checklist as the last verification saw it. */
export type CheckResult = Item<NonNullable<TransactionDetail['checks']>>;
/** An event of the transaction's ledger stream, or an admin action merged into it. */
export type TimelineEntry = Item<TransactionView['timeline']>;
/** The sweeper's watch of a transaction: its next automatic re-check. */
export type Watch = NonNullable<TransactionView['watch']>;
/** An entitlement event of the transaction as the dispatcher recorded it. */
export type EntitlementEvent = Item<TransactionView['entitlementEvents']>;
/** One delivery of an entitlement event to a customer endpoint. */
export type Delivery = Item<EntitlementEvent['deliveries']>;
/** One attempt to deliver an entitlement event to an endpoint. */
export type DeliveryAttempt = Item<Delivery['attempts']>;

/** Answer of `GET /api/v1/audit`, newest first. */
export type AuditPage = Answer<'/api/v1/audit', 'get'>;
/** A row of `GET /api/v1/audit`: one admin action with its outcome. */
export type AuditEntry = Item<AuditPage['items']>;
/** How an admin action ended. */
export type AdminOutcome = NonNullable<AuditEntry['outcome']>;
/** One of {@link ADMIN_TARGET_KINDS}. */
export type AdminTargetKind = AuditEntry['target']['kind'];

/** A row of `GET /api/v1/users`. */
export type ConsoleUser = Item<Answer<'/api/v1/users', 'get'>['items']>;
/** Answer of `POST /api/v1/users` and of a password reset: the user and the generated password, shown once. */
export type UserWithPassword = Answer<'/api/v1/users', 'post'>;

/** A page of a review queue, oldest first; `nextCursor` is `null` on the last page. */
export interface QueuePage<T> {
  items: T[];
  nextCursor: string | null;
}
/** A row of `GET /api/v1/queues/held-in-review`. */
export type HeldInReviewItem = Item<Answer<'/api/v1/queues/held-in-review', 'get'>['items']>;
/** A row of `GET /api/v1/queues/manual-review`, with why it waits for a person. */
export type ManualReviewItem = Item<Answer<'/api/v1/queues/manual-review', 'get'>['items']>;
/** A row of the State Mismatch queue. */
export type StateMismatchItem = Item<Answer<'/api/v1/queues/state-mismatch', 'get'>['items']>;
/** A row of the disputes queue: a settled payment with its open disputes. */
export type DisputeItem = Item<Answer<'/api/v1/queues/disputes', 'get'>['items']>;
/** A failed checklist point of a State Mismatch, with the provider field the observed value came from. */
export type MismatchCheck = Item<StateMismatchItem['failedChecks']>;
/** Answer of `POST /api/v1/transactions/:reference/reconcile` (202). */
export type ReconcileAccepted = Answer<'/api/v1/transactions/{reference}/reconcile', 'post'>;

/** A row of `GET /api/v1/queues/unmatched-payments`: an open unmatched payment and what its provider confirmed (amount and customer `null` when unverified). */
export type UnmatchedPayment = Item<Answer<'/api/v1/queues/unmatched-payments', 'get'>['items']>;
/**
 * The checkout terms an operator proposes for an unmatched payment, from their own source (the
 * body of `POST /api/v1/unmatched-payments/:reference/match-proposals`; `amount` in minor units).
 */
export type MatchTerms = Body<'/api/v1/unmatched-payments/{reference}/match-proposals', 'post'>;
/** A proposal of a sensitive admin action, as it stands (maker-checker, docs/approvals.md): `GET /api/v1/proposals/:id`. */
export type Proposal = Answer<'/api/v1/proposals/{id}', 'get'>;
/** A proposal's status: pending until a second admin approves it, or it is rejected, withdrawn or expires. */
export type ProposalStatus = Proposal['status'];
/** Answer of `POST /api/v1/proposals/:id/approve`: the proposal, approved, and what its action did. */
export type ApprovalResult = Answer<'/api/v1/proposals/{id}/approve', 'post'>;

/** One of {@link DELIVERY_STATES}. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];
/** A customer endpoint of `GET /api/v1/endpoints` (never its signing secret). */
export type Endpoint = Item<Answer<'/api/v1/endpoints', 'get'>['items']>;
/** Answer of `GET /api/v1/endpoints/:id`: the endpoint and its recent deliveries, newest first. */
export type EndpointDetail = Answer<'/api/v1/endpoints/{id}', 'get'>;
/** Answer of `GET /api/v1/deliveries`, newest first. */
export type DeliveryPage = Answer<'/api/v1/deliveries', 'get'>;
/** A delivery of `GET /api/v1/deliveries` and of an endpoint's recent deliveries. */
export type DeliveryItem = Item<DeliveryPage['items']>;
/** Answer of `GET /api/v1/events/:eventId/deliveries`. */
export type EventDeliveries = Answer<'/api/v1/events/{eventId}/deliveries', 'get'>;
/** A delivery with every attempt, oldest first. */
export type DeliveryWithAttempts = Item<EventDeliveries['deliveries']>;
/** One attempt of `GET /api/v1/events/:eventId/deliveries`. */
export type AttemptDetail = Item<DeliveryWithAttempts['attempts']>;
/** Answer of `POST /api/v1/events/:eventId/resend`. */
export type ResendAccepted = Answer<'/api/v1/events/{eventId}/resend', 'post'>;
/** Answer of `POST /api/v1/endpoints/:id/recover`. */
export type RecoverAccepted = Answer<'/api/v1/endpoints/{id}/recover', 'post'>;

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

/** The audit view's filters, as they stand in the page's query string. */
export interface AuditFilters {
  actor: string;
  targetKind: string;
  targetId: string;
}

// The lists read from a filter equal the answers' own enums (a compile error names the one that drifted).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameLists: [
  Same<(typeof ROLES)[number], Role>,
  Same<(typeof ADMIN_TARGET_KINDS)[number], AdminTargetKind>,
  Same<(typeof DELIVERY_STATES)[number], DeliveryItem['state']>,
] = [true, true, true];
void sameLists;
