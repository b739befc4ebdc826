import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEdgeApp, HealthModule, ProblemDetailsFilter } from '@settle/http';
import type { PostgresReceiptProofs } from '@settle/ledger';
import type { HealthProbes, Logger, Pool } from '@settle/platform';
import type { DeliveryAdmin } from '../deliveries/delivery-admin.js';
import type { DispatcherMetrics } from '../dispatcher.metrics.js';
import type { EndpointService } from '../endpoints/endpoint.service.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { DeliveriesController } from './deliveries.controller.js';
import { EndpointsController } from './endpoints.controller.js';
import { ReceiptKeyGuard } from './receipt-key.guard.js';
import { ReceiptsController } from './receipts.controller.js';
import { dispatcherOpenApiDocument, serveDispatcherOpenApi } from './openapi/document.js';
import { ADMIN_KEYS, DELIVERY_ADMIN, ENDPOINT_SERVICE, RECEIPT_KEYS, RECEIPT_PROOFS } from './tokens.js';

/** What the admin API is built on. */
export interface AdminApiDeps {
  adminApiKeySha256: readonly string[];
  /** The merchant's API keys (`SETTLE_API_KEY_SHA256`): they, and the admin keys, may fetch receipts' proofs. */
  apiKeySha256: readonly string[];
  /** Receipts' proofs from the ledger (docs/ledger.md, "Receipts"). */
  receipts: Pick<PostgresReceiptProofs, 'proofFor'>;
  logger: Logger;
  pool: Pool;
  endpoints: EndpointService;
  deliveries: DeliveryAdmin;
  metrics: DispatcherMetrics;
  /** The version the OpenAPI document states (package.json's); `development` when left out. */
  apiVersion?: string;
  /** Readiness: the worker runtime's probes (PostgreSQL, Kafka, the registry, the consumer group). */
  health: HealthProbes;
}

/** The controllers of the admin API and the receipts API, which its OpenAPI document describes (health and metrics aside). */
export const ADMIN_API_CONTROLLERS = [EndpointsController, DeliveriesController, ReceiptsController] as const;

/** The dispatcher's HTTP side: the admin API for endpoints and deliveries, receipts' proofs for the merchant, health and metrics. */
@Module({})
export class AdminApiModule {
  static forRoot(deps: AdminApiDeps): DynamicModule {
    return {
      module: AdminApiModule,
      imports: [HealthModule.forRoot({ probes: deps.health, metrics: deps.metrics.registry })],
      controllers: [...ADMIN_API_CONTROLLERS],
      providers: [
        { provide: ADMIN_KEYS, useValue: deps.adminApiKeySha256 },
        { provide: ENDPOINT_SERVICE, useValue: deps.endpoints },
        { provide: DELIVERY_ADMIN, useValue: deps.deliveries },
        { provide: RECEIPT_KEYS, useValue: [...deps.apiKeySha256, ...deps.adminApiKeySha256] },
        { provide: RECEIPT_PROOFS, useValue: deps.receipts },
        { provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(deps.logger) },
        AdminKeyGuard,
        ReceiptKeyGuard,
      ],
    };
  }
}

/** Largest request body the admin API accepts, bytes (an endpoint's URL, kinds and description). */
export const ADMIN_API_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Builds the dispatcher's admin API on the shared HTTP edge (`@settle/http`, `createEdgeApp`),
 * not yet listening: the worker calls `listen`, tests `inject`. Bodies over
 * {@link ADMIN_API_BODY_LIMIT_BYTES} answer 413; JSON bodies are read strictly. `GET /metrics`
 * serves `deps.metrics.registry` (the worker's registry), where the edge adds the HTTP latency. Its
 * OpenAPI document is served at `/docs/openapi.json`, with a browsable page at `/docs`.
 */
export async function createAdminApi(deps: AdminApiDeps): Promise<NestFastifyApplication> {
  const app = await createEdgeApp(AdminApiModule.forRoot(deps), {
    bodyLimitBytes: ADMIN_API_BODY_LIMIT_BYTES,
    metrics: deps.metrics.registry,
    logger: deps.logger,
  });
  serveDispatcherOpenApi(app, dispatcherOpenApiDocument(app, deps.apiVersion ?? 'development', ADMIN_API_CONTROLLERS));
  return app;
}
