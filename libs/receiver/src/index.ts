/**
 * @settle/receiver: the receiving side of Settle's entitlement webhooks, for customers'
 * backends. The core is framework-free; the PostgreSQL and Redis stores and the NestJS module
 * are subpath exports (`@settle/receiver/postgres`, `/redis`, `/nestjs`) so that their optional
 * peer dependencies are needed only when used.
 *
 * "Receiver rule N" in these docs numbers the kit's rules as its README does, in the order a
 * delivery meets them: 1 verify the signature first (docs/spec.md, section 6, rule 3); 2 record the
 * event_id durably before any business logic (rules 1 and 2); 3 answer 200 at once, duplicates
 * too (rules 4 and 1); 4 set the access expiry only when later, or, for events with a revision,
 * only from a higher revision (rule 5, and Settle's note on it); 5 never drop failed business logic.
 */
export { createReceiver, problemResult, Receiver } from './receiver.js';
export type {
  Acknowledgement,
  AnswerObservation,
  EventHandler,
  EventHandlerContext,
  ReceiveResult,
  ReceiverLogger,
  ReceiverOptions,
  WebhookReceiver,
} from './receiver.js';
export { createNodeHandler, type NodeHandlerOptions } from './node-handler.js';
export { ReceiverConfigError, ReceiverStoreNotDurableError } from './errors.js';
export { sampleEvent, sendSampleEvent, signDelivery, type SampleAnswer, type SignedDelivery } from './sample.js';
export { SignatureVerifier, type HeadersLike, type SignatureCheck } from './signature.js';
export { ENTITLEMENT_EVENT_KINDS, parseEvent } from './event.js';
export type { EntitlementEvent, EntitlementEventKind, FieldError, JsonObject, ParsedEvent } from './event.js';
export {
  CUSTOMER_EVENT_SCHEMAS,
  type CustomerEvent,
  type SubscriptionReinstated,
  type SubscriptionRenewed,
  type SubscriptionRevoked,
  type SubscriptionStarted,
} from './generated/customer-events.js';
export { PROBLEM_JSON, type ProblemDetails, type ReceiverProblemCode } from './problem.js';
export { EVENT_STATES } from './store.port.js';
export type { AccessGrant, Completion, EventState, FailedEvent, LeasedEvent, ReceiverStore, RetryOutcome, StoredEvent } from './store.port.js';
export { MemoryReceiverStore } from './memory-store.js';
export { fetchReceiptProof, receiptOf, verifyReceipt } from './receipt.js';
export type { FetchedProof, Receipt, ReceiptFailure, ReceiptProof, ReceiptVerification } from './receipt.js';
