import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { literalOf, PROVIDERS } from '@settle/domain';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems, ApiQueryOf, encodeKeysetCursor, parseBody, parseKeysetCursor } from '@settle/http';
import { listUnmatchedPayments } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { z } from 'zod';
import { AdminKeyGuard } from '../http/api-key.guard.js';
import { unmatchedPaymentsAnswer } from '../http/openapi/answers.js';
import { SECURITY } from '../http/openapi/security.js';
import { PG_POOL } from '../tokens.js';

/** An empty query value is no value. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** `GET /v1/admin/unmatched-payments` query: which ones, and a keyset page. */
export const unmatchedPaymentsQuery = z.object({
  status: optional(
    z.enum(['open', 'matched']).describe('`open` (default): waiting for a checkout or an operator; `matched`: a checkout was registered since'),
  ).transform((v) => v ?? 'open'),
  cursor: optional(z.string().max(1000).describe("The previous page's `next_cursor`")),
  limit: optional(z.coerce.number().int().min(1).max(100).describe('Rows per page, 1 to 100 (default 50)')).transform((v) => v ?? 50),
});

/** One unmatched payment as the admin API lists it (amounts in minor units). */
export type UnmatchedPaymentView = z.infer<typeof unmatchedPaymentsAnswer>['unmatched_payments'][number];

/**
 * Payments Settle was never told about (docs/unmatched-payments.md), for upstream services that
 * want to self-heal: `GET /v1/admin/unmatched-payments` lists them from
 * `read_model.unmatched_payments` (a projection of the ledger's `unmatched-` streams), oldest
 * first, by keyset pages. Admin key only: the answers carry customers' e-mails and phones. A
 * service that finds its own checkout here registers it under the payment's reference
 * (`POST /v1/checkouts`): the payment is then matched and verified at once.
 */
@ApiTags('admin')
@ApiBearerAuth(SECURITY.adminApiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/admin/unmatched-payments')
@UseGuards(AdminKeyGuard)
export class UnmatchedPaymentsController {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  @Get()
  @ApiOperation({
    summary: 'Unmatched payments (admin)',
    description:
      'Payments a provider confirmed, server to server, for a reference that has no checkout, oldest first. Register the checkout under the reference to match one: the four checks then run against the provider answer.',
  })
  @ApiQueryOf(unmatchedPaymentsQuery)
  @ApiAnswer(200, unmatchedPaymentsAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [503, 'READ_MODEL.NOT_READY'])
  async list(@Query() query: Record<string, string>): Promise<z.infer<typeof unmatchedPaymentsAnswer>> {
    const q = parseBody(unmatchedPaymentsQuery, query);
    const rows = await listUnmatchedPayments(this.pool, { status: q.status, after: parseKeysetCursor(q.cursor), limit: q.limit });
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      unmatched_payments: page.map((r) => ({
        reference: r.reference,
        provider: literalOf(PROVIDERS, r.provider, 'provider'),
        status: r.status,
        amount: r.amountMinor,
        currency: r.currency,
        customer: { email: r.customerEmail, phone: r.customerPhone },
        terms_verified: r.termsVerified,
        provider_status: r.providerStatus,
        provider_transaction_id: r.providerTransactionId,
        verified_at: r.verifiedAt.toISOString(),
        matched_at: r.matchedAt?.toISOString() ?? null,
      })),
      next_cursor: rows.length > q.limit && last ? encodeKeysetCursor({ at: last.verifiedAtText, reference: last.reference }) : null,
    };
  }
}
