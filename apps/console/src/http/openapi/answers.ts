/**
 * The console API's answers as schemas (docs/console.md, "API"), the source of the OpenAPI
 * document's response bodies. Strict objects: the API tests parse real answers with them, so a
 * field added to an answer and not here (or the reverse) fails a test instead of drifting.
 */
import { ENTITLEMENT_STATUSES, PROVIDERS, TRANSACTION_STATUSES } from '@settle/domain';
import { isoTime } from '@settle/http';
import { ADMIN_ACTIONS, ADMIN_TARGET_KINDS } from '@settle/ledger';
import { z } from 'zod';
import { CONSOLE_ROLES } from '../../auth/roles.js';

const cursor = z.string().nullable().describe('Cursor of the next page (pass it as `cursor`); `null` on the last page');

/** `POST /api/v1/session`, `GET /api/v1/session`. */
export const sessionAnswer = z.strictObject({
  user: z.strictObject({ email: z.string(), role: z.enum(CONSOLE_ROLES) }),
  csrfToken: z.string().describe('Send it in `x-csrf-token` with every POST, PUT, PATCH and DELETE'),
});

/** A figure read from Kafka: read, not read this time (the brokers did not answer), or not configured. */
const kafkaReading = <T extends z.core.$ZodLooseShape>(figures: T) =>
  z.discriminatedUnion('status', [
    z.strictObject({ status: z.literal('ok'), checkedAt: isoTime, ...figures }),
    z.strictObject({ status: z.literal('unavailable'), code: z.literal('CONSOLE.KAFKA_UNAVAILABLE'), detail: z.string(), checkedAt: isoTime }),
    z.strictObject({ status: z.literal('not_configured') }),
  ]);

/** `GET /api/v1/overview`. */
export const overviewAnswer = z.strictObject({
  states: z.record(z.enum(TRANSACTION_STATUSES), z.number().int()).describe('Transactions per state; every state listed, 0 when none'),
  entitlements: z.record(z.enum(ENTITLEMENT_STATUSES), z.number().int()).describe('Transactions per entitlement status'),
  heldInReview: z.number().int().describe('The held-in-review queue: RECOVERING with entitlement HELD_IN_REVIEW'),
  manualReview: z.number().int(),
  stateMismatch: z.number().int(),
  total: z.number().int(),
  deadLetteredDeliveries: z.number().int().describe('Deliveries the dispatcher gave up (state `failed`)'),
  deadLetteredMessages: kafkaReading({
    total: z.number().int(),
    topics: z.array(
      z.strictObject({
        topic: z.string(),
        kind: z.enum(['messages', 'deliveries']),
        records: z.number().int(),
        exists: z.boolean(),
        partitions: z.array(z.strictObject({ partition: z.number().int(), low: z.number().int(), high: z.number().int(), records: z.number().int() })),
      }),
    ),
  }).describe('Records in the dead-letter topics'),
  consumerLag: kafkaReading({
    total: z.number().int(),
    groups: z.array(
      z.strictObject({
        worker: z.string(),
        groupId: z.string(),
        topics: z.array(z.string()),
        state: z.string(),
        members: z.number().int(),
        lag: z.number().int(),
        partitions: z.array(
          z.strictObject({
            topic: z.string(),
            partition: z.number().int(),
            committedOffset: z.number().int().nullable(),
            endOffset: z.number().int(),
            lag: z.number().int(),
          }),
        ),
      }),
    ),
  }).describe("The workers' consumer groups' lag"),
  ledgerChains: z
    .discriminatedUnion('status', [
      z.strictObject({
        status: z.literal('verified'),
        position: z.number().int(),
        globalHash: z.string(),
        verifiedAt: isoTime,
        eventsChecked: z.number().int(),
        lastFullVerificationAt: isoTime.nullable(),
      }),
      z.strictObject({
        status: z.literal('broken'),
        position: z.number().int(),
        reason: z.string(),
        streamId: z.string().nullable(),
        revision: z.number().int().nullable(),
        checkedAt: isoTime,
        lastVerifiedPosition: z.number().int(),
      }),
      z.strictObject({ status: z.literal('pending') }),
      z.strictObject({ status: z.literal('not_applicable'), detail: z.string() }),
    ])
    .describe("The ledger's hash chains as the console's own verification last found them"),
});

const summaryFields = {
  reference: z.string(),
  provider: z.enum(PROVIDERS),
  state: z.enum(TRANSACTION_STATUSES),
  entitlementStatus: z.enum(ENTITLEMENT_STATUSES),
  amountMinor: z.number().int().describe('Integer, minor units of `currency`'),
  currency: z.string(),
  userId: z.string().nullable(),
  email: z.string().nullable(),
  updatedAt: isoTime,
};

/** A row of the transaction list. */
export const transactionSummary = z.strictObject(summaryFields);

/** `GET /api/v1/transactions`. */
export const transactionListAnswer = z.strictObject({ items: z.array(transactionSummary), nextCursor: cursor });

/** `GET /api/v1/queues/held-in-review`. */
export const heldInReviewAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      ...summaryFields,
      nextCheckAt: isoTime.nullable().describe("The sweeper's next re-check; `null` when none is scheduled"),
      checksSoFar: z.number().int(),
    }),
  ),
  nextCursor: cursor,
});

/** `GET /api/v1/queues/manual-review`. */
export const manualReviewAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      ...summaryFields,
      lastVerdict: z.string().nullable(),
      lastTrigger: z.string().nullable(),
      checksSoFar: z.number().int(),
      lastEvent: z.strictObject({ type: z.string(), recordedAt: isoTime, detail: z.string().nullable() }).nullable(),
    }),
  ),
  nextCursor: cursor,
});

/** `GET /api/v1/queues/state-mismatch`. */
export const stateMismatchAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      ...summaryFields,
      failedChecks: z.array(
        z.strictObject({
          check: z.string(),
          code: z.string().nullable(),
          expected: z.string().describe('What Settle registered'),
          observed: z.string().describe('What the provider reported'),
          providerField: z.string().nullable().describe("The provider answer's field the observed value was read from"),
        }),
      ),
    }),
  ),
  nextCursor: cursor,
});

const check = z.strictObject({
  check: z.string(),
  passed: z.boolean(),
  code: z.string().nullable(),
  expected: z.string(),
  observed: z.string(),
  providerField: z.string().nullable().describe("The provider answer's field the observed value was read from"),
});

/** `GET /api/v1/transactions/{reference}`. */
export const transactionDetailAnswer = z.strictObject({
  transaction: z.strictObject({
    ...summaryFields,
    entitlement: z.string().nullable(),
    accessPeriod: z.string().nullable(),
    checks: z.array(check).nullable().describe('The four consensus checks of the last decision (docs/spec.md, section 3)'),
    lastVerdict: z.string().nullable(),
    lastTrigger: z.string().nullable(),
  }),
  timeline: z.array(
    z.strictObject({
      position: z.number().int(),
      revision: z.number().int(),
      type: z.string(),
      recordedAt: isoTime,
      trigger: z.string().nullable(),
      verdict: z.string().nullable(),
      state: z.string().nullable(),
      detail: z.string().nullable(),
      actor: z.strictObject({ email: z.string(), role: z.string() }).optional().describe('Who asked for it: on admin actions only'),
      adminAction: z
        .strictObject({
          action: z.enum(ADMIN_ACTIONS),
          outcome: z.enum(['succeeded', 'failed']).nullable(),
          errorCode: z.string().nullable(),
          completedAt: isoTime.nullable(),
        })
        .optional()
        .describe("An admin action's name and outcome (`null` while unknown)"),
    }),
  ),
  watch: z.strictObject({ nextCheckAt: isoTime.nullable(), checksSoFar: z.number().int(), active: z.boolean() }).nullable(),
  entitlementEvents: z.array(
    z.strictObject({
      eventId: z.string(),
      event: z.string(),
      expiresAt: isoTime.nullable(),
      deliveries: z.array(
        z.strictObject({
          endpointId: z.string(),
          endpointUrl: z.string(),
          status: z.string(),
          attempts: z.array(
            z.strictObject({ at: isoTime, outcome: z.string(), httpStatus: z.number().int().nullable(), durationMs: z.number().describe('Milliseconds') }),
          ),
        }),
      ),
    }),
  ),
});

/** `POST /api/v1/transactions/{reference}/reconcile`. */
export const reconcileAnswer = z.strictObject({ reference: z.string(), state: z.string().describe("The transaction's state when ingestion took the request") });

const user = z.strictObject({
  email: z.string(),
  role: z.enum(CONSOLE_ROLES),
  disabled: z.boolean(),
  createdAt: isoTime,
  lastSignInAt: isoTime.nullable(),
});

/** `GET /api/v1/users`. */
export const userListAnswer = z.strictObject({ items: z.array(user) });

/** `PATCH /api/v1/users/{email}`. */
export const userAnswer = user;

/** `POST /api/v1/users`, `POST /api/v1/users/{email}/password`: the user and a generated password, shown this once. */
export const userWithPasswordAnswer = z.strictObject({
  user,
  password: z.string().describe('Generated; shown once, stored only as an argon2id hash'),
});

/** `GET /api/v1/audit`. */
export const auditPageAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      actionId: z.uuid(),
      action: z.enum(ADMIN_ACTIONS),
      actor: z.strictObject({ email: z.string(), role: z.string() }),
      target: z.strictObject({ kind: z.enum(ADMIN_TARGET_KINDS), id: z.string() }),
      parameters: z.record(z.string(), z.unknown()),
      requestedAt: isoTime,
      outcome: z.enum(['succeeded', 'failed']).nullable().describe('`null` while running, or when the outcome could not be recorded'),
      errorCode: z.string().nullable(),
      result: z.record(z.string(), z.unknown()).nullable(),
      completedAt: isoTime.nullable(),
      position: z.number().int().describe('Ledger position of the request'),
    }),
  ),
  nextCursor: cursor,
});

const endpoint = z.strictObject({
  id: z.uuid(),
  url: z.string(),
  description: z.string().nullable(),
  eventKinds: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  disabledAt: isoTime.nullable(),
  failingSince: isoTime.nullable(),
  previousSecretExpiresAt: isoTime.nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

const deliveryFields = {
  deliveryId: z.number().int(),
  eventId: z.uuid(),
  event: z.string(),
  userId: z.string(),
  endpointId: z.uuid(),
  endpointUrl: z.string().nullable(),
  state: z.enum(['pending', 'delivered', 'failed', 'cancelled']).describe('`failed`: dead-lettered'),
  attemptCount: z.number().int(),
  nextAttemptAt: isoTime.nullable(),
  deliveredAt: isoTime.nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  recordedAt: isoTime,
};
const delivery = z.strictObject(deliveryFields);

/** `GET /api/v1/endpoints`; `POST /api/v1/endpoints/{id}/enable` and `/disable` answer one endpoint. */
export const endpointListAnswer = z.strictObject({ items: z.array(endpoint) });

/** One endpoint as it is now. */
export const endpointAnswer = endpoint;

/** `GET /api/v1/endpoints/{id}`. */
export const endpointDetailAnswer = z.strictObject({ endpoint, recentDeliveries: z.array(delivery) });

/** `GET /api/v1/deliveries`. */
export const deliveryPageAnswer = z.strictObject({ items: z.array(delivery), nextCursor: cursor });

/** `GET /api/v1/events/{eventId}/deliveries`. */
export const eventDeliveriesAnswer = z.strictObject({
  eventId: z.uuid(),
  deliveries: z.array(
    z.strictObject({
      ...deliveryFields,
      attempts: z.array(
        z.strictObject({
          attempt: z.number().int(),
          at: isoTime,
          outcome: z.string(),
          httpStatus: z.number().int().nullable(),
          durationMs: z.number().describe('Milliseconds'),
          error: z.string().nullable(),
          responseExcerpt: z.string().nullable(),
          nextAttemptAt: isoTime.nullable(),
        }),
      ),
    }),
  ),
});

/** `POST /api/v1/events/{eventId}/resend`. */
export const resendAnswer = z.strictObject({ eventId: z.uuid(), requeued: z.number().int().describe('Deliveries scheduled') });

/** `POST /api/v1/endpoints/{id}/recover`. */
export const recoverAnswer = z.strictObject({ endpointId: z.uuid(), since: isoTime, requeued: z.number().int().describe('Deliveries scheduled') });
