import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HEALTH_POOL, HealthController, METRICS_REGISTRY, ProblemDetailsFilter } from '@settle/http';
import type { Logger, Pool } from '@settle/platform';
import type { DeliveryAdmin } from '../deliveries/delivery-admin.js';
import type { DispatcherMetrics } from '../dispatcher.metrics.js';
import type { EndpointService } from '../endpoints/endpoint.service.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { DeliveriesController } from './deliveries.controller.js';
import { EndpointsController } from './endpoints.controller.js';
import { ADMIN_KEYS, DELIVERY_ADMIN, ENDPOINT_SERVICE } from './tokens.js';

/** What the admin API is built on. */
export interface AdminApiDeps {
  adminApiKeySha256: readonly string[];
  logger: Logger;
  pool: Pool;
  endpoints: EndpointService;
  deliveries: DeliveryAdmin;
  metrics: DispatcherMetrics;
}

/** The dispatcher's HTTP side: the admin API for endpoints and deliveries, health and metrics. */
@Module({})
export class AdminApiModule {
  static forRoot(deps: AdminApiDeps): DynamicModule {
    return {
      module: AdminApiModule,
      controllers: [EndpointsController, DeliveriesController, HealthController],
      providers: [
        { provide: ADMIN_KEYS, useValue: deps.adminApiKeySha256 },
        { provide: ENDPOINT_SERVICE, useValue: deps.endpoints },
        { provide: DELIVERY_ADMIN, useValue: deps.deliveries },
        { provide: HEALTH_POOL, useValue: deps.pool },
        { provide: METRICS_REGISTRY, useValue: deps.metrics.registry },
        { provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(deps.logger) },
        AdminKeyGuard,
      ],
    };
  }
}
