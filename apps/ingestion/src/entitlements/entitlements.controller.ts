import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems } from '@settle/http';
import { findEntitlements } from '@settle/ledger';
import { ProblemError, type Pool } from '@settle/platform';
import { ApiKeyGuard } from '../http/api-key.guard.js';
import { entitlementsAnswer } from '../http/openapi/answers.js';
import { SECURITY } from '../http/openapi/security.js';
import { PG_POOL } from '../tokens.js';

/** One entitlement of a user as `GET /v1/users/{user_id}/entitlements` shows it. */
export interface EntitlementView {
  entitlement: string;
  /** Current access expiry, ISO 8601. */
  expires_at: string;
  /** Grants so far (settled payments that bought this entitlement). */
  grants: number;
  /** `subscription_started` or `subscription_renewed`: the kind of the last grant. */
  last_event: string;
  /** The last grant's `event_id` (the idempotency key the customer's backend received). */
  last_event_id: string;
  last_reference: string;
  updated_at: string;
}

/**
 * A user's entitlements as the ledger granted them (API key required), read from
 * `read_model.entitlements`, a projection of the entitlement streams (docs/delivery.md):
 * `GET /v1/users/{user_id}/entitlements` answers 200 `{ user_id, entitlements: [...] }`, an empty
 * list for a user never granted anything. The customer's backend is told by delivered events;
 * this is for support and reconciliation.
 */
@ApiTags('entitlements')
@ApiBearerAuth(SECURITY.apiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/users')
@UseGuards(ApiKeyGuard)
export class EntitlementsController {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  @Get(':userId/entitlements')
  @ApiOperation({
    summary: "A user's entitlements",
    description:
      "What the ledger granted the user, with each entitlement's current expiry; an empty list for a user never granted anything. For support and reconciliation: the customer's backend is told by delivered events.",
  })
  @ApiParam({ name: 'userId', description: 'The user id the checkouts named (`user_id`), at most 200 characters' })
  @ApiAnswer(200, entitlementsAnswer, "The user's entitlements")
  @ApiProblems([404, 'USER.NOT_FOUND'], [503, 'READ_MODEL.NOT_READY'])
  async list(@Param('userId') userId: string): Promise<{ user_id: string; entitlements: EntitlementView[] }> {
    if (userId.length === 0 || userId.length > 200) throw new ProblemError(404, 'USER.NOT_FOUND', 'User not found');
    const rows = await findEntitlements(this.pool, userId);
    return {
      user_id: userId,
      entitlements: rows.map((r) => ({
        entitlement: r.entitlement,
        expires_at: r.expiresAt.toISOString(),
        grants: r.grants,
        last_event: r.lastEvent,
        last_event_id: r.lastEventId,
        last_reference: r.lastReference,
        updated_at: r.updatedAt.toISOString(),
      })),
    };
  }
}
