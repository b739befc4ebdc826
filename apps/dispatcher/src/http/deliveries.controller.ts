import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { parseBody } from '@settle/http';
import type { DeliveryAdmin, DeliveryView } from '../deliveries/delivery-admin.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { listDeliveriesQuery, pathId, resendBody } from './requests.js';
import { DELIVERY_ADMIN } from './tokens.js';

/**
 * Deliveries and their attempts (admin key required), docs/delivery.md, "Endpoints and their secrets" (the admin API table):
 * - `GET /v1/admin/events/{event_id}/deliveries`: every delivery of an entitlement event, with every attempt;
 * - `POST /v1/admin/events/{event_id}/resend` `{ endpoint_id? }`: send it again;
 * - `GET /v1/admin/deliveries?state=failed`: dead-lettered deliveries (any state, newest first, keyset pages).
 */
@Controller('v1/admin')
@UseGuards(AdminKeyGuard)
export class DeliveriesController {
  constructor(@Inject(DELIVERY_ADMIN) private readonly deliveries: DeliveryAdmin) {}

  @Get('events/:eventId/deliveries')
  async attempts(@Param('eventId') eventId: string): Promise<{ event_id: string; deliveries: DeliveryView[] }> {
    const id = pathId(eventId, 'EVENT.NOT_FOUND');
    return { event_id: id, deliveries: await this.deliveries.attemptsOf(id) };
  }

  @Post('events/:eventId/resend')
  @HttpCode(200)
  async resend(@Param('eventId') eventId: string, @Body() body: unknown): Promise<{ requeued: number }> {
    const input = parseBody(resendBody, body ?? undefined);
    return { requeued: await this.deliveries.resend(pathId(eventId, 'EVENT.NOT_FOUND'), input?.endpoint_id) };
  }

  @Get('deliveries')
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
