import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { parseBody } from '@settle/http';
import type { Endpoint } from '../endpoints/endpoint.repository.js';
import type { EndpointService } from '../endpoints/endpoint.service.js';
import type { DeliveryAdmin } from '../deliveries/delivery-admin.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { createEndpointBody, pathId, recoverBody, rotateSecretBody, updateEndpointBody } from './requests.js';
import { DELIVERY_ADMIN, ENDPOINT_SERVICE } from './tokens.js';

/** An endpoint as the admin API shows it: never its secret. */
export interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  event_kinds: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

function endpointView(e: Endpoint): EndpointView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    event_kinds: e.eventKinds,
    enabled: e.enabled,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    failing_since: iso(e.failingSince),
    previous_secret_expires_at: iso(e.previousSecretExpiresAt),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

/**
 * The customer's endpoints (admin key required), docs/delivery.md, "Endpoints and their secrets" (the admin API table):
 * - `POST /v1/admin/endpoints` registers one: 201 with its `secret` (`whsec_...`), shown this once;
 * - `GET /v1/admin/endpoints`, `GET /v1/admin/endpoints/{id}`;
 * - `PATCH /v1/admin/endpoints/{id}` changes `url`, `event_kinds`, `description`;
 * - `DELETE /v1/admin/endpoints/{id}`: 204; its delivery history stays;
 * - `POST /v1/admin/endpoints/{id}/enable` and `/disable`;
 * - `POST /v1/admin/endpoints/{id}/rotate-secret`: a new secret (shown once), the previous one
 *   signing too for `previous_secret_valid_for_ms` (default 24 h);
 * - `POST /v1/admin/endpoints/{id}/recover` `{ since }`: every delivery that failed since then,
 *   again, and the events received since then that it never had.
 */
@Controller('v1/admin/endpoints')
@UseGuards(AdminKeyGuard)
export class EndpointsController {
  constructor(
    @Inject(ENDPOINT_SERVICE) private readonly endpoints: EndpointService,
    @Inject(DELIVERY_ADMIN) private readonly deliveries: DeliveryAdmin,
  ) {}

  @Post()
  @HttpCode(201)
  @Header('cache-control', 'no-store')
  async create(@Body() body: unknown): Promise<EndpointView & { secret: string }> {
    const input = parseBody(createEndpointBody, body);
    const { endpoint, secret } = await this.endpoints.create({
      url: input.url,
      description: input.description ?? null,
      ...(input.event_kinds ? { eventKinds: input.event_kinds } : {}),
    });
    return { ...endpointView(endpoint), secret: secret.reveal() };
  }

  @Get()
  async list(): Promise<{ endpoints: EndpointView[] }> {
    return { endpoints: (await this.endpoints.list()).map(endpointView) };
  }

  @Get(':id')
  async get(@Param('id') id: string): Promise<EndpointView> {
    return endpointView(await this.endpoints.get(pathId(id, 'ENDPOINT.NOT_FOUND')));
  }

  @Patch(':id')
  async update(@Param('id') id: string, @Body() body: unknown): Promise<EndpointView> {
    const input = parseBody(updateEndpointBody, body);
    return endpointView(
      await this.endpoints.update(pathId(id, 'ENDPOINT.NOT_FOUND'), {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.event_kinds ? { eventKinds: input.event_kinds } : {}),
      }),
    );
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    await this.endpoints.delete(pathId(id, 'ENDPOINT.NOT_FOUND'));
  }

  @Post(':id/enable')
  @HttpCode(200)
  async enable(@Param('id') id: string): Promise<EndpointView> {
    return endpointView(await this.endpoints.setEnabled(pathId(id, 'ENDPOINT.NOT_FOUND'), true));
  }

  @Post(':id/disable')
  @HttpCode(200)
  async disable(@Param('id') id: string): Promise<EndpointView> {
    return endpointView(await this.endpoints.setEnabled(pathId(id, 'ENDPOINT.NOT_FOUND'), false));
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  async rotate(@Param('id') id: string, @Body() body: unknown): Promise<EndpointView & { secret: string }> {
    const input = parseBody(rotateSecretBody, body ?? undefined);
    const { endpoint, secret } = await this.endpoints.rotateSecret(pathId(id, 'ENDPOINT.NOT_FOUND'), input?.previous_secret_valid_for_ms);
    return { ...endpointView(endpoint), secret: secret.reveal() };
  }

  @Post(':id/recover')
  @HttpCode(200)
  async recover(@Param('id') id: string, @Body() body: unknown): Promise<{ requeued: number }> {
    const { since } = parseBody(recoverBody, body);
    return { requeued: await this.deliveries.recover(pathId(id, 'ENDPOINT.NOT_FOUND'), new Date(since)) };
  }
}
