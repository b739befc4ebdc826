import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { parseBody } from '@settle/http';
import type { HeldInReviewItem, ManualReviewItem, TransactionRepository } from '../transactions/transaction.repository.js';
import { parseCursor, queueQuery } from './requests.js';
import { SessionGuard } from './session.guard.js';
import { TRANSACTIONS } from './tokens.js';

/**
 * The review queues (any role), docs/console.md, "API", oldest first with keyset pages:
 * - `GET /api/v1/queues/held-in-review?cursor=&limit=`: `RECOVERING` / `HELD_IN_REVIEW`, with the
 *   sweeper's next re-check and the re-checks so far;
 * - `GET /api/v1/queues/manual-review?cursor=&limit=`: `MANUAL_REVIEW`, with why.
 *
 * Both answer 400 `REQUEST.VALIDATION_FAILED` for a `limit` outside 1..100 or a cursor the
 * queue did not give, 503 `READ_MODEL.NOT_READY` while the schemas they read do not exist.
 */
@Controller('api/v1/queues')
@UseGuards(SessionGuard)
export class QueuesController {
  constructor(@Inject(TRANSACTIONS) private readonly transactions: TransactionRepository) {}

  @Get('held-in-review')
  heldInReview(@Query() query: Record<string, string>): Promise<{ items: HeldInReviewItem[]; nextCursor: string | null }> {
    const q = parseBody(queueQuery, query);
    return this.transactions.heldInReview({ after: parseCursor(q.cursor), limit: q.limit });
  }

  @Get('manual-review')
  manualReview(@Query() query: Record<string, string>): Promise<{ items: ManualReviewItem[]; nextCursor: string | null }> {
    const q = parseBody(queueQuery, query);
    return this.transactions.manualReview({ after: parseCursor(q.cursor), limit: q.limit });
  }
}
