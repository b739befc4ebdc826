import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiProblems, ApiQueryOf, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import type { DeliveryAdmin, DeliveryView } from '../deliveries/delivery-admin.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { deliveryPageAnswer, eventDeliveriesAnswer, requeuedAnswer } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import { listDeliveriesQuery, pathId, resendBody } from './requests.js';
import { DELIVERY_ADMIN } from './tokens.js';

/**
 * Deliveries and their attempts (admin key required), docs/delivery.md, "Endpoints and their secrets" (the admin API table):
 * - `GET /v1/admin/events/{event_id}/deliveries`: every delivery of an entitlement event, with every attempt;
 * - `POST /v1/admin/events/{event_id}/resend` `{ endpoint_id? }`: send it again;
 * - `GET /v1/admin/deliveries?state=failed`: dead-lettered deliveries (any state, newest first, keyset pages).
 */
@ApiTags('deliveries')
@ApiBearerAuth(SECURITY.adminApiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/admin')
@UseGuards(AdminKeyGuard)
export class DeliveriesController {
  constructor(@Inject(DELIVERY_ADMIN) private readonly deliveries: DeliveryAdmin) {}

  @Get('events/:eventId/deliveries')
  @ApiOperation({ summary: "An entitlement event's deliveries", description: 'Every delivery of the event, one per endpoint, with every attempt.' })
  @ApiParam({ name: 'eventId', description: "The entitlement event's id (UUID, its `event_id`)" })
  @ApiAnswer(200, eventDeliveriesAnswer, 'The deliveries')
  @ApiProblems([404, 'EVENT.NOT_FOUND'])
  async attempts(@Param('eventId') eventId: string): Promise<{ event_id: string; deliveries: DeliveryView[] }> {
    const id = pathId(eventId, 'EVENT.NOT_FOUND');
    return { event_id: id, deliveries: await this.deliveries.attemptsOf(id) };
  }

  @Post('events/:eventId/resend')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resend an entitlement event',
    description:
      'To one endpoint (a delivery is recorded if it had none), or, without a body, to every endpoint that had it. A new round of the retry schedule starts at once.',
  })
  @ApiParam({ name: 'eventId', description: "The entitlement event's id (UUID, its `event_id`)" })
  @ApiBodyOf(resendBody)
  @ApiAnswer(200, requeuedAnswer, 'Scheduled')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [404, 'EVENT.NOT_FOUND'], [404, 'ENDPOINT.NOT_FOUND'])
  async resend(@Param('eventId') eventId: string, @Body() body: unknown): Promise<{ requeued: number }> {
    const input = parseBody(resendBody, body ?? undefined);
    return { requeued: await this.deliveries.resend(pathId(eventId, 'EVENT.NOT_FOUND'), input?.endpoint_id) };
  }

  @Get('deliveries')
  @ApiOperation({
    summary: 'Deliveries',
    description: 'Newest first, in keyset pages (pass `next_before` as `before`); `state=failed` lists the dead-lettered ones.',
  })
  @ApiQueryOf(listDeliveriesQuery)
  @ApiAnswer(200, deliveryPageAnswer, 'One page')
  @ApiProblems([400, 'REQUEST.VALIDATION_FAILED'])
  async list(@Query() query: Record<string, string>): Promise<{ deliveries: DeliveryView[]; next_before: number | null }> {
    const q = parseBody(listDeliveriesQuery, query);
    const deliveries = await this.deliveries.list({
      limit: q.limit,
      ...(q.state ? { state: q.state } : {}),
      ...(q.endpoint_id ? { endpointId: q.endpoint_id } : {}),
      ...(q.before ? { before: q.before } : {}),
    });
    return { deliveries, next_before: deliveries.length === q.limit ? deliveries.at(-1)!.delivery_id : null };
  }
}
