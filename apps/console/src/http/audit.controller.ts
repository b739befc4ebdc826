import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems, ApiQueryOf, isoTime, parseBody } from '@settle/http';
import { ADMIN_ACTIONS, ADMIN_TARGET_KINDS } from '@settle/ledger';
import { z } from 'zod';
import { cursor } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import type { AuditEntry, AuditTrail } from '../audit/audit-trail.port.js';
import { auditQuery } from './requests.js';
import { MinRole, SessionGuard } from './session.guard.js';
import { AUDIT_TRAIL } from './tokens.js';

/** `GET /api/v1/audit`. */
const auditPageAnswer = z.strictObject({
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

/** A page of the audit view. */
export interface AuditPage {
  /** Newest first. */
  items: AuditEntry[];
  /** The ledger position to continue before (decimal text), `null` on the last page. */
  nextCursor: string | null;
}

/**
 * The audit view (admin only), docs/console.md, "API" and "Audit":
 * `GET /api/v1/audit?actor=&targetKind=&targetId=&cursor=&limit=`, every admin action recorded in
 * the ledger with its actor, newest first, keyset pages by the ledger position of its request.
 *
 * Answers 400 `REQUEST.VALIDATION_FAILED` for an unknown target kind, a target kind without an id
 * (or the reverse), a `limit` outside 1..100 or a cursor the view did not give; 403
 * `CONSOLE.FORBIDDEN` below admin; 503 `READ_MODEL.NOT_READY` while the ledger does not exist.
 */
@ApiTags('audit')
@ApiCookieAuth(SECURITY.session)
@Controller('api/v1/audit')
@UseGuards(SessionGuard)
@MinRole('admin')
export class AuditController {
  constructor(@Inject(AUDIT_TRAIL) private readonly audit: AuditTrail) {}

  @Get()
  @ApiOperation({ summary: 'The audit trail (admin)', description: 'Every admin action recorded in the ledger with its actor and outcome, newest first.' })
  @ApiQueryOf(auditQuery)
  @ApiAnswer(200, auditPageAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'], [401, 'CONSOLE.UNAUTHENTICATED'], [403, 'CONSOLE.FORBIDDEN'], [503, 'READ_MODEL.NOT_READY'])
  async list(@Query() query: Record<string, string>): Promise<AuditPage> {
    const q = parseBody(auditQuery, query);
    const page = await this.audit.list({
      limit: q.limit,
      ...(q.cursor !== undefined ? { before: Number(q.cursor) } : {}),
      ...(q.actor !== undefined ? { actor: q.actor } : {}),
      ...(q.targetKind !== undefined && q.targetId !== undefined ? { target: { kind: q.targetKind, id: q.targetId } } : {}),
    });
    return { items: page.items, nextCursor: page.nextBefore === null ? null : String(page.nextBefore) };
  }
}
