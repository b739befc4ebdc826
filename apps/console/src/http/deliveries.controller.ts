import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiProblems, ApiQueryOf, isoTime, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import { z } from 'zod';
import { cursor } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import type { Logger } from '@settle/platform';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import type { DeliveriesService, DeliveryPage } from '../deliveries/deliveries.service.js';
import type { DeliveryView, DeliveryWithAttempts, EndpointView } from '../deliveries/delivery-admin.port.js';
import { deliveriesQuery, parseRecoverSince, pathEndpointId, pathEventId, resendBody } from './requests.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { AUDIT_TRAIL, CONSOLE_LOGGER, DELIVERIES } from './tokens.js';

/** One endpoint as it is now: `GET /api/v1/endpoints` lists them; `POST /api/v1/endpoints/{id}/enable` and `/disable` answer one. */
const endpointAnswer = z.strictObject({
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

/** `GET /api/v1/endpoints`. */
const endpointListAnswer = z.strictObject({ items: z.array(endpointAnswer) });

/** `GET /api/v1/endpoints/{id}`. */
const endpointDetailAnswer = z.strictObject({ endpoint: endpointAnswer, recentDeliveries: z.array(delivery) });

/** `GET /api/v1/deliveries`. */
const deliveryPageAnswer = z.strictObject({ items: z.array(delivery), nextCursor: cursor });

/** `GET /api/v1/events/{eventId}/deliveries`. */
const eventDeliveriesAnswer = z.strictObject({
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
const resendAnswer = z.strictObject({ eventId: z.uuid(), requeued: z.number().int().describe('Deliveries scheduled') });

/** `POST /api/v1/endpoints/{id}/recover`. */
const recoverAnswer = z.strictObject({ endpointId: z.uuid(), since: isoTime, requeued: z.number().int().describe('Deliveries scheduled') });

/**
 * The Deliveries pages' API (docs/console.md, "API" and "Deliveries"), over the dispatcher's
 * admin API; reads for any role:
 * - `GET /api/v1/endpoints`, `GET /api/v1/endpoints/:id` (with its recent deliveries);
 * - `GET /api/v1/deliveries?state=&endpointId=&cursor=&limit=` (`state=failed`: dead-lettered);
 * - `GET /api/v1/events/:eventId/deliveries`: every delivery of an event with every attempt.
 * Actions, each recorded in the ledger with its actor before it runs (`AuditTrail.run`):
 * - `POST /api/v1/events/:eventId/resend` `{ endpointId? }` (operator or admin);
 * - `POST /api/v1/endpoints/:id/recover` `{ since }` (operator or admin);
 * - `POST /api/v1/endpoints/:id/enable` and `/disable` (admin: they change where money-related events go).
 *
 * Errors: 404 `CONSOLE.ENDPOINT_NOT_FOUND`, `CONSOLE.EVENT_NOT_FOUND`; 400 `REQUEST.VALIDATION_FAILED`;
 * 503 `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE`;
 * 500 `CONSOLE.DISPATCHER_REJECTED`; the session guard's 401 and 403.
 */
@ApiTags('deliveries')
@ApiCookieAuth(SECURITY.session)
@ApiProblems(
  [401, 'CONSOLE.UNAUTHENTICATED'],
  [503, 'CONSOLE.DELIVERY_NOT_CONFIGURED'],
  [503, 'CONSOLE.DISPATCHER_UNAVAILABLE'],
  [500, 'CONSOLE.DISPATCHER_REJECTED'],
)
@Controller('api/v1')
@UseGuards(SessionGuard)
export class DeliveriesController {
  constructor(
    @Inject(DELIVERIES) private readonly deliveries: DeliveriesService,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {}

  @Get('endpoints')
  @ApiOperation({ summary: 'Customer endpoints', description: 'Never their signing secrets; disabled endpoints first.' })
  @ApiAnswer(200, endpointListAnswer, 'The endpoints')
  async endpoints(): Promise<{ items: EndpointView[] }> {
    return { items: await this.deliveries.endpoints() };
  }

  @Get('endpoints/:id')
  @ApiOperation({ summary: 'One endpoint', description: 'With its 20 newest deliveries.' })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiAnswer(200, endpointDetailAnswer, 'The endpoint')
  @ApiProblems([404, 'CONSOLE.ENDPOINT_NOT_FOUND'])
  endpoint(@Param('id') id: string): Promise<{ endpoint: EndpointView; recentDeliveries: DeliveryView[] }> {
    return this.deliveries.endpoint(pathEndpointId(id));
  }

  @Get('deliveries')
  @ApiOperation({ summary: 'Deliveries', description: 'Newest first, keyset pages; `state=failed` lists the dead-lettered ones.' })
  @ApiQueryOf(deliveriesQuery)
  @ApiAnswer(200, deliveryPageAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'])
  list(@Query() query: Record<string, string>): Promise<DeliveryPage> {
    const q = parseBody(deliveriesQuery, query);
    return this.deliveries.deliveries({
      limit: q.limit,
      ...(q.state ? { state: q.state } : {}),
      ...(q.endpointId ? { endpointId: q.endpointId.toLowerCase() } : {}),
      ...(q.cursor !== undefined ? { before: q.cursor } : {}),
    });
  }

  @Get('events/:eventId/deliveries')
  @ApiOperation({ summary: "An entitlement event's delivery attempts", description: 'Every delivery of the event with every attempt.' })
  @ApiParam({ name: 'eventId', description: "The entitlement event's id (UUID)" })
  @ApiAnswer(200, eventDeliveriesAnswer, 'The deliveries')
  @ApiProblems([404, 'CONSOLE.EVENT_NOT_FOUND'])
  eventDeliveries(@Param('eventId') eventId: string): Promise<{ eventId: string; deliveries: DeliveryWithAttempts[] }> {
    return this.deliveries.eventDeliveries(pathEventId(eventId));
  }

  @Post('events/:eventId/resend')
  @MinRole('operator')
  @HttpCode(200)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Resend an entitlement event (operator or admin)',
    description: 'To one endpoint, or (no body) to every endpoint that had it. Recorded in the ledger with the actor first.',
  })
  @ApiParam({ name: 'eventId', description: "The entitlement event's id (UUID)" })
  @ApiBodyOf(resendBody)
  @ApiAnswer(200, resendAnswer, 'Scheduled')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.EVENT_NOT_FOUND'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
  )
  async resend(
    @Param('eventId') eventId: string,
    @Body() body: unknown,
    @CurrentSession() session: RequestSession,
  ): Promise<{ eventId: string; requeued: number }> {
    const id = pathEventId(eventId);
    const endpointId = parseBody(resendBody, body ?? undefined)?.endpointId?.toLowerCase();
    const dispatcher = this.deliveries.dispatcher();
    this.logger.info({ eventId: id, endpointId, user: session.user.email, role: session.user.role }, 'delivery resend requested');
    const requeued = await this.audit.run(
      {
        actor: session.user,
        action: 'delivery.resend',
        target: { kind: 'event', id },
        parameters: endpointId ? { endpointId } : {},
      },
      () => dispatcher.resend(id, endpointId),
      (n) => ({ requeued: n }),
    );
    return { eventId: id, requeued };
  }

  @Post('endpoints/:id/recover')
  @MinRole('operator')
  @HttpCode(200)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Recover an endpoint since a time (operator or admin)',
    description: 'Its deliveries dead-lettered since then again, and the events since then it never had; at most 30 days back. Recorded in the ledger first.',
  })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiBodyOf(z.strictObject({ since: z.iso.datetime({ offset: true }).describe('ISO 8601 with its offset; not in the future, at most 30 days ago') }))
  @ApiAnswer(200, recoverAnswer, 'Scheduled')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [403, 'CONSOLE.FORBIDDEN'],
    [404, 'CONSOLE.ENDPOINT_NOT_FOUND'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
  )
  async recover(
    @Param('id') id: string,
    @Body() body: unknown,
    @CurrentSession() session: RequestSession,
  ): Promise<{ endpointId: string; since: string; requeued: number }> {
    const endpointId = pathEndpointId(id);
    const since = parseRecoverSince(body, new Date());
    const dispatcher = this.deliveries.dispatcher();
    this.logger.info({ endpointId, since, user: session.user.email, role: session.user.role }, 'endpoint recovery requested');
    const requeued = await this.audit.run(
      {
        actor: session.user,
        action: 'endpoint.recover',
        target: { kind: 'endpoint', id: endpointId },
        parameters: { since: since.toISOString() },
      },
      () => dispatcher.recover(endpointId, since),
      (n) => ({ requeued: n }),
    );
    return { endpointId, since: since.toISOString(), requeued };
  }

  @Post('endpoints/:id/enable')
  @MinRole('admin')
  @HttpCode(200)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Re-enable an endpoint (admin)',
    description: 'Its waiting deliveries fall due at once. Recorded in the ledger with the actor first.',
  })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiAnswer(200, endpointAnswer, 'The endpoint as it is now')
  @ApiProblems([403, 'CONSOLE.CSRF_REJECTED'], [403, 'CONSOLE.FORBIDDEN'], [404, 'CONSOLE.ENDPOINT_NOT_FOUND'], [503, 'CONSOLE.AUDIT_UNAVAILABLE'])
  enable(@Param('id') id: string, @CurrentSession() session: RequestSession): Promise<EndpointView> {
    return this.setEnabled(pathEndpointId(id), true, session);
  }

  @Post('endpoints/:id/disable')
  @MinRole('admin')
  @HttpCode(200)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Disable an endpoint (admin)',
    description: 'Deliveries to it wait until it is enabled again. Recorded in the ledger with the actor first.',
  })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiAnswer(200, endpointAnswer, 'The endpoint as it is now')
  @ApiProblems([403, 'CONSOLE.CSRF_REJECTED'], [403, 'CONSOLE.FORBIDDEN'], [404, 'CONSOLE.ENDPOINT_NOT_FOUND'], [503, 'CONSOLE.AUDIT_UNAVAILABLE'])
  disable(@Param('id') id: string, @CurrentSession() session: RequestSession): Promise<EndpointView> {
    return this.setEnabled(pathEndpointId(id), false, session);
  }

  private setEnabled(endpointId: string, enabled: boolean, session: RequestSession): Promise<EndpointView> {
    const dispatcher = this.deliveries.dispatcher();
    this.logger.info(
      { endpointId, enabled, user: session.user.email, role: session.user.role },
      enabled ? 'endpoint enable requested' : 'endpoint disable requested',
    );
    return this.audit.run(
      { actor: session.user, action: enabled ? 'endpoint.enable' : 'endpoint.disable', target: { kind: 'endpoint', id: endpointId } },
      () => dispatcher.setEnabled(endpointId, enabled),
      (endpoint) => ({ enabled: endpoint.enabled, disabledReason: endpoint.disabledReason }),
    );
  }
}
