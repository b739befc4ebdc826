/**
 * Ingestion's answers as schemas (README.md, "The API"; docs/api.md), the source of its OpenAPI
 * document's response bodies. Strict objects: the API tests parse real answers with them
 * (libs/testing/src/answer-conformance.ts), so a field added to an answer and not here (or the
 * reverse) fails a test instead of drifting.
 */
import {
  ATTEMPT_REASONS,
  CONSENSUS_CHECK_NAMES,
  ENTITLEMENT_EVENT_KINDS,
  MISMATCH_RESOLUTIONS,
  MISMATCH_RESOLUTION_STATES,
  MONEY_STATES,
  ENTITLEMENT_STATUSES,
  PROVIDERS,
  RECONCILIATION_EXCEPTION_CLASSES,
  RECONCILIATION_RUN_KINDS,
  RECONCILIATION_RUN_STATUSES,
  TRANSACTION_STATUSES,
  UNMATCHED_CLOSE_REASONS,
  VERDICT_KINDS,
} from '@settle/domain';
import { isoTime } from '@settle/http';
import { z } from 'zod';
import { DEFAULT_VERIFY_WAIT_MS, MAX_VERIFY_WAIT_MS } from '../../checkouts/verify.commands.js';

const reference = z.string().describe("The checkout's transaction reference, as registered");
const state = z.enum(TRANSACTION_STATUSES).describe("The transaction's state (docs/state-machine.md)");
const entitlementStatus = z.enum(ENTITLEMENT_STATUSES);

/** `POST /v1/checkouts`, `POST /v1/checkouts/{reference}/complete`: the checkout and its state now. */
export const intakeAnswer = z.strictObject({ reference, state });

/** One point of the four-point consensus check (docs/spec.md, section 3; `ConsensusCheck` in libs/domain). */
const consensusCheck = z.strictObject({
  check: z.enum(CONSENSUS_CHECK_NAMES),
  passed: z.boolean(),
  code: z.string().nullable().describe('`null` when passed, else `CONSENSUS.<POINT>_MISMATCH`'),
  expected: z.string().describe('What Settle registered, as text (amounts in minor units)'),
  observed: z.string().describe('What the provider answered, as text (amounts in minor units)'),
});

/** `GET /v1/checkouts/{reference}`. */
export const checkoutAnswer = z.strictObject({
  reference,
  provider: z.enum(PROVIDERS),
  state,
  entitlement_status: entitlementStatus,
  amount: z.number().int().describe('Integer, minor units of `currency`'),
  currency: z.string().describe('ISO 4217'),
  entitlement: z.string(),
  access_period: z.string().nullable().describe('ISO 8601 duration the payment buys'),
  checks: z.array(consensusCheck).optional().describe("The last decision's four checks; absent before the first decision"),
  money_state: z
    .enum(MONEY_STATES)
    .describe(
      'What happened to the money after the payment settled, read from the provider (docs/state-machine.md, "The money after settlement"): `none`, `partially_refunded`, `refunded`, `reversed`, `disputed` or `charged_back`. `state` never changes once terminal; this does.',
    ),
  returned: z.number().int().describe('Money returned to the payer so far (refunds, a reversal, lost disputes), integer minor units of `currency`'),
  resolution: z
    .enum(MISMATCH_RESOLUTION_STATES)
    .nullable()
    .describe(
      'A State Mismatch\'s resolution (docs/state-machine.md, "Resolving a State Mismatch"): `accepted_as_paid` (two people accepted it; the entitlement is granted), `refund_due` (open until the provider shows the money returned) or `refunded` (closed by that refund); `null` for none. `state` stays `STATE_MISMATCH`.',
    ),
  updated_at: isoTime,
});

const verificationFields = {
  reference,
  state,
  entitlement_status: entitlementStatus,
  verification: z
    .enum(['completed', 'pending', 'not_needed'])
    .describe('`completed`: a fresh provider answer is reflected; `pending`: the wait ran out; `not_needed`: the transaction was already terminal'),
  verdict: z.enum(VERDICT_KINDS).nullable().describe('The provider answer the state reflects; `null` while none is known'),
  coalesced: z.boolean().describe('`true` when the call shared an unanswered request or a recent provider answer instead of asking the provider again'),
};

/** `POST /v1/checkouts/{reference}/verify`, `POST /v1/admin/checkouts/{reference}/reconcile`. */
export const verificationAnswer = z.strictObject(verificationFields);

/** `POST /v1/checkouts/{reference}/attempts`. */
export const attemptAnswer = z.strictObject({
  ...verificationFields,
  allowed: z.boolean().nullable().describe('May the client start a new payment attempt? `null`: not yet known, ask again'),
  reason: z.enum(ATTEMPT_REASONS),
});

/** `GET /v1/users/{user_id}/entitlements`. */
export const entitlementsAnswer = z.strictObject({
  user_id: z.string(),
  entitlements: z.array(
    z.strictObject({
      entitlement: z.string(),
      expires_at: isoTime.describe('Current access expiry, ISO 8601 UTC'),
      grants: z.number().int().describe('Settled payments that bought this entitlement'),
      last_event: z.enum(ENTITLEMENT_EVENT_KINDS),
      last_event_id: z.uuid().describe("The last grant's event id: the idempotency key the customer's backend received"),
      last_reference: z.string(),
      updated_at: isoTime,
    }),
  ),
});

/** `GET /v1/admin/unmatched-payments`: one keyset page (docs/unmatched-payments.md). */
export const unmatchedPaymentsAnswer = z.strictObject({
  unmatched_payments: z.array(
    z.strictObject({
      reference: z.string().describe("The payment's provider reference (it has no checkout)"),
      provider: z.enum(PROVIDERS),
      status: z.enum(['open', 'matched', 'closed']),
      amount: z.number().int().nullable().describe('What the provider confirmed, minor units of `currency`; `null` when unverified (M-Pesa)'),
      currency: z.string().nullable().describe('ISO 4217'),
      customer: z
        .strictObject({ email: z.string().nullable(), phone: z.string().nullable() })
        .describe('The payer as the provider reports them, masked (`c•••@example.com`, `+254•••678`: docs/privacy.md, "Masked forms"); empty when unverified'),
      terms_verified: z.boolean().describe('Whether amount and customer come from the provider answer (`false` for M-Pesa, whose answer carries neither)'),
      provider_status: z.string().nullable(),
      provider_transaction_id: z.string().nullable(),
      verified_at: isoTime.describe('When the provider confirmed it'),
      matched_at: isoTime.nullable().describe('When a checkout was registered under its reference'),
      closed: z
        .strictObject({ at: isoTime, reason: z.enum(UNMATCHED_CLOSE_REASONS), by: z.string() })
        .nullable()
        .describe('When, why and by whom an operator closed it without a checkout'),
    }),
  ),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; `null` on the last'),
});

/** `POST /v1/admin/unmatched-payments/{reference}/close`: the request is durable. */
export const closeAnswer = z.strictObject({ reference: z.string(), status: z.literal('closing') });

/** `POST /v1/admin/reconciliation-runs`: the request is durable (docs/reconciliation.md). */
export const runRequestedAnswer = z.strictObject({
  run_id: z.string().describe("The run's id (`rcr_...`): follow it with `GET /v1/admin/reconciliation-runs/{run_id}`"),
  status: z.literal('requested'),
  window: z.strictObject({ since: isoTime, until: isoTime }),
});

/** One reconciliation run as the admin API shows it. */
export const reconciliationRunAnswer = z.strictObject({
  run_id: z.string(),
  provider: z.enum(PROVIDERS),
  kind: z.enum(RECONCILIATION_RUN_KINDS).describe('`incremental` and `daily` (scheduled), or `on_demand`'),
  status: z.enum(RECONCILIATION_RUN_STATUSES).describe('`started`, `progressed` (paging), `completed` or `failed`'),
  window: z.strictObject({ since: isoTime, until: isoTime }).describe("By the provider's creation time; `until` exclusive"),
  dry_run: z.boolean(),
  started_by: z.string().describe('`schedule`, `cli`, a console user, or `admin-api`'),
  pages: z.number().int().describe("Pages of the provider's list read so far"),
  total_pages: z.number().int().nullable().describe("The provider's count of pages, when its answer gives one"),
  listed: z.number().int().describe('Provider transactions read so far'),
  out_of_scope: z.number().int().describe("Without Settle's marker: counted, never compared"),
  too_recent: z.number().int().describe('Unknown here and created within the grace period: left to a later run'),
  classes: z.record(z.string(), z.number().int()).describe('Transactions compared so far, per class of the decision table'),
  exceptions_raised: z.number().int(),
  exceptions_resolved: z.number().int(),
  started_at: isoTime,
  finished_at: isoTime.nullable(),
  error: z.string().nullable().describe('For failed: a stable code and a message'),
});

/** `GET /v1/admin/reconciliation-runs`: one keyset page, newest first. */
export const reconciliationRunsAnswer = z.strictObject({
  runs: z.array(reconciliationRunAnswer),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; `null` on the last'),
});

/** `GET /v1/admin/reconciliation-exceptions`: one keyset page, newest first. */
export const reconciliationExceptionsAnswer = z.strictObject({
  exceptions: z.array(
    z.strictObject({
      exception_id: z.string(),
      reference: z.string(),
      provider: z.enum(PROVIDERS),
      class: z.enum(RECONCILIATION_EXCEPTION_CLASSES),
      status: z.enum(['open', 'resolved']),
      evidence: z
        .array(z.strictObject({ field: z.string(), provider: z.string(), settle: z.string() }))
        .describe("Each compared field that differs: the provider's value beside Settle's (amounts in minor units)"),
      run_id: z.string().nullable().describe('The run that raised it; `null` for a duplicate charge flagged live at settlement'),
      provider_transaction_id: z.string().nullable(),
      provider_status: z.string().nullable(),
      amount: z.number().int().nullable().describe("The provider's amount, minor units of `currency`"),
      currency: z.string().nullable(),
      raised_at: isoTime,
      resolved: z
        .strictObject({ at: isoTime, resolution: z.string(), note: z.string().nullable(), by: z.string().nullable() })
        .nullable()
        .describe('How it was resolved: `matches` (a later run), `reclassified`, or `operator` with a reason'),
    }),
  ),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; `null` on the last'),
});

/** `POST /v1/admin/reconciliation-exceptions/{exception_id}/resolve`: the request is durable. */
export const resolveAnswer = z.strictObject({ exception_id: z.string(), status: z.literal('resolving') });

/** `POST /v1/webhooks/...`: the event is durable (or was already). */
export const webhookAnswer = z.strictObject({ received: z.literal(true) });

/** `?wait_ms=` of `/verify`, `/attempts` and `/reconcile` (checked by `parseWaitMs`). */
export const waitQuery = z.object({
  wait_ms: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_VERIFY_WAIT_MS)
    .optional()
    .describe(`Longest wait for the fresh result, milliseconds (default ${DEFAULT_VERIFY_WAIT_MS})`),
});

/** `POST /v1/admin/checkouts/{reference}/resolve-mismatch`: the resolution is durable (docs/state-machine.md, "Resolving a State Mismatch"). */
export const resolveMismatchAnswer = z.strictObject({
  reference: z.string(),
  resolution: z.enum(MISMATCH_RESOLUTIONS),
  status: z.literal('resolving').describe("Requested: `resolution` in the checkout's status answer reads it once the ledger recorded it"),
});
