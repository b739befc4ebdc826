import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiProblems, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import type { Endpoint } from '../endpoints/endpoint.repository.js';
import type { EndpointService } from '../endpoints/endpoint.service.js';
import type { DeliveryAdmin } from '../deliveries/delivery-admin.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { endpointAnswer, endpointListAnswer, endpointWithSecretAnswer, requeuedAnswer } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
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
@ApiTags('endpoints')
@ApiBearerAuth(SECURITY.adminApiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
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
  @ApiOperation({
    summary: 'Register an endpoint',
    description:
      "Its URL (HTTPS; in production no private network), the event kinds it receives (every kind when left out) and a description. A signing secret is generated and kept in the dispatcher's vault; the answer shows it this once.",
  })
  @ApiBodyOf(createEndpointBody)
  @ApiAnswer(201, endpointWithSecretAnswer, 'Registered, with its signing secret')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [400, 'ENDPOINT.URL_NOT_ALLOWED'])
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
  @ApiOperation({ summary: 'Every endpoint', description: 'Never their secrets.' })
  @ApiAnswer(200, endpointListAnswer, 'The endpoints')
  async list(): Promise<{ endpoints: EndpointView[] }> {
    return { endpoints: (await this.endpoints.list()).map(endpointView) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One endpoint' })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiAnswer(200, endpointAnswer, 'The endpoint')
  @ApiProblems([404, 'ENDPOINT.NOT_FOUND'])
  async get(@Param('id') id: string): Promise<EndpointView> {
    return endpointView(await this.endpoints.get(pathId(id, 'ENDPOINT.NOT_FOUND')));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change an endpoint', description: 'Any of its URL, event kinds and description.' })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiBodyOf(updateEndpointBody)
  @ApiAnswer(200, endpointAnswer, 'The endpoint as it is now')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [400, 'ENDPOINT.URL_NOT_ALLOWED'], [404, 'ENDPOINT.NOT_FOUND'])
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
  @ApiOperation({ summary: 'Delete an endpoint', description: 'Nothing more is delivered to it; its delivery history stays.' })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiAnswer(204, null, 'Deleted')
  @ApiProblems([404, 'ENDPOINT.NOT_FOUND'])
  async remove(@Param('id') id: string): Promise<void> {
    await this.endpoints.delete(pathId(id, 'ENDPOINT.NOT_FOUND'));
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enable an endpoint',
    description: 'The events it missed while disabled get a delivery, and its waiting deliveries are due at once (docs/delivery.md, "Disabled endpoints").',
  })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiAnswer(200, endpointAnswer, 'The endpoint as it is now')
  @ApiProblems([404, 'ENDPOINT.NOT_FOUND'])
  async enable(@Param('id') id: string): Promise<EndpointView> {
    return endpointView(await this.endpoints.setEnabled(pathId(id, 'ENDPOINT.NOT_FOUND'), true));
  }

  @Post(':id/disable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Disable an endpoint',
    description: 'Nothing is attempted or recorded for it until it is enabled again, which records the deliveries it missed (`disabled_reason: admin`).',
  })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiAnswer(200, endpointAnswer, 'The endpoint as it is now')
  @ApiProblems([404, 'ENDPOINT.NOT_FOUND'])
  async disable(@Param('id') id: string): Promise<EndpointView> {
    return endpointView(await this.endpoints.setEnabled(pathId(id, 'ENDPOINT.NOT_FOUND'), false));
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: "Rotate an endpoint's signing secret",
    description:
      'A new secret, shown this once; the previous one keeps signing too (both signatures are sent) for `previous_secret_valid_for_ms` milliseconds (default `DISPATCHER_SECRET_ROTATION_OVERLAP_MS`, 24 h; at most 7 days). The body may be left out.',
  })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiBodyOf(rotateSecretBody)
  @ApiAnswer(200, endpointWithSecretAnswer, 'The endpoint with its new signing secret')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [404, 'ENDPOINT.NOT_FOUND'])
  async rotate(@Param('id') id: string, @Body() body: unknown): Promise<EndpointView & { secret: string }> {
    const input = parseBody(rotateSecretBody, body ?? undefined);
    const { endpoint, secret } = await this.endpoints.rotateSecret(pathId(id, 'ENDPOINT.NOT_FOUND'), input?.previous_secret_valid_for_ms);
    return { ...endpointView(endpoint), secret: secret.reveal() };
  }

  @Post(':id/recover')
  @HttpCode(200)
  @ApiOperation({
    summary: "Recover an endpoint's deliveries since a time",
    description: 'Every delivery to it that failed (was dead-lettered) since then, again, and the events received since then that it never had.',
  })
  @ApiParam({ name: 'id', description: "The endpoint's id (UUID)" })
  @ApiBodyOf(recoverBody)
  @ApiAnswer(200, requeuedAnswer, 'Scheduled')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [404, 'ENDPOINT.NOT_FOUND'])
  async recover(@Param('id') id: string, @Body() body: unknown): Promise<{ requeued: number }> {
    const { since } = parseBody(recoverBody, body);
    return { requeued: await this.deliveries.recover(pathId(id, 'ENDPOINT.NOT_FOUND'), new Date(since)) };
  }
}
