import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems, ApiQueryOf, isoTime, parseBody, parseKeysetCursor } from '@settle/http';
import { MONEY_STATES, PROVIDERS } from '@settle/domain';
import { z } from 'zod';
import type { ReviewQueues } from '../queues/review-queues.js';
import type { DisputeItem, HeldInReviewItem, ManualReviewItem, StateMismatchItem, UnmatchedPaymentItem } from '../transactions/views.js';
import { cursor, summaryFields } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import { queueQuery } from './requests.js';
import { SessionGuard } from './session.guard.js';
import { QUEUES } from './tokens.js';

/** `GET /api/v1/queues/held-in-review`. */
const heldInReviewAnswer = z.strictObject({
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
const manualReviewAnswer = z.strictObject({
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
const stateMismatchAnswer = z.strictObject({
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

/** `GET /api/v1/queues/disputes`. */
const disputesAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      ...summaryFields,
      moneyState: z.enum(MONEY_STATES),
      returnedMinor: z.number().int().describe('Money returned so far (refunds before the dispute), integer minor units'),
      disputes: z.array(
        z.strictObject({
          providerId: z.string().describe("The provider's dispute id"),
          amountMinor: z.number().int().describe('The disputed amount, integer minor units'),
          reason: z.string().nullable().describe("The payer's reason as the provider names it"),
          openedAt: isoTime,
        }),
      ),
    }),
  ),
  nextCursor: cursor,
});

/** `GET /api/v1/queues/unmatched-payments`. */
const unmatchedPaymentsAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      reference: z.string().describe('The reference the provider confirmed a payment for; no checkout has it'),
      provider: z.enum(PROVIDERS),
      amountMinor: z.number().int().nullable().describe('Integer, minor units of `currency`; `null` when the provider answer carries none (M-Pesa)'),
      currency: z.string().nullable(),
      customer: z
        .strictObject({ email: z.string().nullable(), phone: z.string().nullable() })
        .describe('The customer the provider confirmed, masked (`c•••@example.com`, `+254•••678`); `null` fields when unverified'),
      termsVerified: z.boolean().describe("Whether amount and customer come from the provider's verified answer (false for M-Pesa: unverified)"),
      providerStatus: z.string().nullable().describe("The provider's own status of the payment"),
      providerTransactionId: z.string().nullable().describe("The provider's own id of the payment"),
      verifiedAt: isoTime.describe('When the provider confirmed it'),
    }),
  ),
  nextCursor: cursor,
});

/**
 * The review queues (any role), docs/console.md, "API", oldest first with keyset pages:
 * - `GET /api/v1/queues/held-in-review?cursor=&limit=`: `RECOVERING` / `HELD_IN_REVIEW`, with the
 *   sweeper's next re-check and the re-checks so far;
 * - `GET /api/v1/queues/manual-review?cursor=&limit=`: `MANUAL_REVIEW`, with why;
 * - `GET /api/v1/queues/state-mismatch?cursor=&limit=`: `STATE_MISMATCH`, newest first, each failed
 *   check expected against observed with the provider field it came from;
 * - `GET /api/v1/queues/disputes?cursor=&limit=`: settled payments with a dispute still open,
 *   newest first, each open dispute with its amount, reason and when it was opened;
 * - `GET /api/v1/queues/unmatched-payments?cursor=&limit=`: the open unmatched payments (a
 *   provider confirmed them for a reference with no checkout), oldest first by `verifiedAt`,
 *   amounts in minor units (`null` when unverified), read from `read_model.console_unmatched_payments`.
 *
 * All answer 400 `REQUEST.VALIDATION_FAILED` for a `limit` outside 1..100 or a cursor the
 * queue did not give, 503 `READ_MODEL.NOT_READY` while the schemas they read do not exist.
 */
@ApiTags('queues')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'], [400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
@Controller('api/v1/queues')
@UseGuards(SessionGuard)
export class QueuesController {
  constructor(@Inject(QUEUES) private readonly queues: ReviewQueues) {}

  @Get('held-in-review')
  @ApiOperation({ summary: 'Held in review', description: "RECOVERING with entitlement HELD_IN_REVIEW, oldest first, with the sweeper's next re-check." })
  @ApiQueryOf(queueQuery)
  @ApiAnswer(200, heldInReviewAnswer, 'One page')
  heldInReview(@Query() query: Record<string, string>): Promise<{ items: HeldInReviewItem[]; nextCursor: string | null }> {
    const q = parseBody(queueQuery, query);
    return this.queues.heldInReview({ after: parseKeysetCursor(q.cursor), limit: q.limit });
  }

  @Get('manual-review')
  @ApiOperation({ summary: 'Manual review', description: 'MANUAL_REVIEW, oldest first, with why.' })
  @ApiQueryOf(queueQuery)
  @ApiAnswer(200, manualReviewAnswer, 'One page')
  manualReview(@Query() query: Record<string, string>): Promise<{ items: ManualReviewItem[]; nextCursor: string | null }> {
    const q = parseBody(queueQuery, query);
    return this.queues.manualReview({ after: parseKeysetCursor(q.cursor), limit: q.limit });
  }

  @Get('state-mismatch')
  @ApiOperation({
    summary: 'State Mismatch',
    description: 'STATE_MISMATCH, newest first: each failed checklist point, expected against observed, and the provider field the observed value came from.',
  })
  @ApiQueryOf(queueQuery)
  @ApiAnswer(200, stateMismatchAnswer, 'One page')
  stateMismatch(@Query() query: Record<string, string>): Promise<{ items: StateMismatchItem[]; nextCursor: string | null }> {
    const q = parseBody(queueQuery, query);
    return this.queues.stateMismatch({ after: parseKeysetCursor(q.cursor), limit: q.limit });
  }

  @Get('disputes')
  @ApiOperation({
    summary: 'Disputes',
    description:
      'Settled payments with a dispute (a chargeback) still open at the provider, newest first, read from the ledger: the grant stays in force until the dispute is decided unless the policy suspends it.',
  })
  @ApiQueryOf(queueQuery)
  @ApiAnswer(200, disputesAnswer, 'One page')
  disputes(@Query() query: Record<string, string>): Promise<{ items: DisputeItem[]; nextCursor: string | null }> {
    const q = parseBody(queueQuery, query);
    return this.queues.disputes({ after: parseKeysetCursor(q.cursor), limit: q.limit });
  }

  @Get('unmatched-payments')
  @ApiOperation({
    summary: 'Unmatched payments',
    description:
      'Payments a provider confirmed for a reference with no checkout, still open, oldest first: nothing was granted. Amounts in minor units, `null` when unverified (M-Pesa).',
  })
  @ApiQueryOf(queueQuery)
  @ApiAnswer(200, unmatchedPaymentsAnswer, 'One page')
  unmatchedPayments(@Query() query: Record<string, string>): Promise<{ items: UnmatchedPaymentItem[]; nextCursor: string | null }> {
    const q = parseBody(queueQuery, query);
    return this.queues.unmatchedPayments({ after: parseKeysetCursor(q.cursor), limit: q.limit });
  }
}
