import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import type { IngestionConfig } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import { HealthModule, ProblemDetailsFilter } from '@settle/http';
import type { Outbox, OutboxRelay } from '@settle/messaging';
import type { HealthProbes, Logger, Pool } from '@settle/platform';
import type { WebhookAuthenticator } from '@settle/providers';
import type { Registry } from 'prom-client';
import { CompleteCheckoutHandler, RegisterCheckoutHandler } from './checkouts/checkout.commands.js';
import { CheckoutIntake } from './checkouts/checkout-intake.js';
import { CheckoutCommandsConsumer } from './commands/checkout-commands.consumer.js';
import { CheckoutCommands } from './commands/checkout-commands.service.js';
import { VerificationWaiters } from './commands/verification-waiters.js';
import { CheckoutRepository } from './checkouts/checkout.repository.js';
import { CheckoutsController } from './checkouts/checkouts.controller.js';
import { VerifyCheckoutHandler } from './checkouts/verify.commands.js';
import { EntitlementsController } from './entitlements/entitlements.controller.js';
import { AdminKeyGuard, ApiKeyGuard } from './http/api-key.guard.js';
import { AdminController } from './checkouts/admin.controller.js';
import { MismatchResolutionController } from './checkouts/mismatch-resolution.controller.js';
import { ReconciliationController } from './reconciliation/reconciliation.controller.js';
import { UnmatchedPaymentsController } from './unmatched/unmatched-payments.controller.js';
import { CONFIG, LOGGER, METRICS, OUTBOX, OUTBOX_RELAY, PG_POOL, WEBHOOK_AUTHENTICATORS, WEBHOOK_SECRETS } from './tokens.js';
import type { WebhookSecrets } from './webhooks/webhook-secrets.js';
import { VerificationRequests } from './verification/verification-requests.js';
import { IngestionMetrics } from './webhooks/webhook.metrics.js';
import { WebhookIntake } from './webhooks/webhook-intake.js';
import { WebhookRepository } from './webhooks/webhook.repository.js';
import { WebhooksController } from './webhooks/webhooks.controller.js';

/** Connections created at boot and handed to the Nest module. */
export interface IngestionInfrastructure {
  config: IngestionConfig;
  logger: Logger;
  pool: Pool;
  outbox: Outbox;
  /** The outbox relay, woken after a commit that enqueued messages (started and stopped by `main`). */
  relay: Pick<OutboxRelay, 'wake'>;
  /** The webhook signing secrets, current then previous, per provider. */
  webhookSecrets: Pick<WebhookSecrets, 'candidates'>;
  /** Every provider's webhook scheme bound to its settings. */
  webhookAuthenticators: Readonly<Record<ProviderName, WebhookAuthenticator>>;
  /**
   * The app's Prometheus registry, served at `GET /metrics` (`createMetricsRegistry`: with the
   * default process metrics); `createIngestionApp` makes one when absent (the module alone: an
   * empty one).
   */
  registry?: Registry;
  /** Readiness: PostgreSQL (down: not ready), Kafka and the registry (degraded: the outbox holds events meanwhile). */
  health: HealthProbes;
}

/** The controllers of ingestion's API, which its OpenAPI document describes (health and metrics aside). */
export const INGESTION_CONTROLLERS = [
  CheckoutsController,
  AdminController,
  MismatchResolutionController,
  UnmatchedPaymentsController,
  ReconciliationController,
  EntitlementsController,
  WebhooksController,
] as const;

/**
 * The ingestion app: checkout API and provider webhooks over HTTP, checkout commands from the
 * commands topic (docs/api.md, "Two ways in"), outbox to Kafka out.
 */
@Module({})
export class IngestionModule {
  static forRoot(infra: IngestionInfrastructure): DynamicModule {
    const metrics = new IngestionMetrics(infra.registry);
    return {
      module: IngestionModule,
      imports: [CqrsModule.forRoot(), HealthModule.forRoot({ probes: infra.health, metrics: metrics.registry })],
      // The commands topic's consumer: no routes; its batch handler runs once the boot connects the Kafka transport (`startCheckoutCommandLoop`).
      controllers: [...INGESTION_CONTROLLERS, CheckoutCommandsConsumer],
      providers: [
        { provide: CONFIG, useValue: infra.config },
        { provide: LOGGER, useValue: infra.logger },
        { provide: PG_POOL, useValue: infra.pool },
        { provide: OUTBOX, useValue: infra.outbox },
        { provide: OUTBOX_RELAY, useValue: infra.relay },
        { provide: METRICS, useValue: metrics },
        { provide: WEBHOOK_SECRETS, useValue: infra.webhookSecrets },
        { provide: WEBHOOK_AUTHENTICATORS, useValue: infra.webhookAuthenticators },
        { provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(infra.logger) },
        ApiKeyGuard,
        AdminKeyGuard,
        CheckoutRepository,
        CheckoutIntake,
        CheckoutCommands,
        VerificationWaiters,
        WebhookRepository,
        WebhookIntake,
        VerificationRequests,
        RegisterCheckoutHandler,
        CompleteCheckoutHandler,
        VerifyCheckoutHandler,
      ],
    };
  }
}
