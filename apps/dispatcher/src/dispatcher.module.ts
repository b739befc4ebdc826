import { fileURLToPath } from 'node:url';
import { Controller, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadDispatcherConfig, type DispatcherConfig } from '@settle/config';
import { packageVersion } from '@settle/http';
import { PostgresReceiptProofs } from '@settle/ledger';
import type { BatchItem } from '@settle/messaging';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { ConsumeBatches, WORKER_CONTEXT, WorkerModule, type WorkerContext } from '@settle/runtime';
import { DeliveryAdmin } from './deliveries/delivery-admin.js';
import { DeliveryScheduler } from './deliveries/delivery-scheduler.js';
import { DeliverySender } from './deliveries/delivery-sender.js';
import { DeliveryRepository } from './deliveries/delivery.repository.js';
import { FanOut } from './deliveries/fan-out.js';
import { DispatcherMetrics } from './dispatcher.metrics.js';
import { EndpointSecrets } from './endpoints/endpoint-secrets.js';
import { EndpointRepository } from './endpoints/endpoint.repository.js';
import { EndpointService } from './endpoints/endpoint.service.js';
import { createAdminApi } from './http/admin-api.module.js';
import { DISPATCHER_MIGRATIONS, ENDPOINT_VAULT_SCHEMA } from './schema.js';

/** The repository (or image) root, from `dist/apps/dispatcher/src/dispatcher.module.js`: its package.json names the version. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** How often expired previous secrets (after a rotation's overlap) are deleted, milliseconds. */
const SECRET_RETIREMENT_INTERVAL_MS = 60_000;

type DispatcherContext = WorkerContext<DispatcherConfig, 'dispatcher'>;

/**
 * The dispatcher's consumer loop and its life: every batch of `entitlement-events.v1` recorded as
 * deliveries in one transaction per fetch ({@link FanOut}); at boot the delivery scheduler, the
 * expired secrets' retirement and the admin API (a Nest HTTP app of its own on `HTTP_PORT`,
 * `createAdminApi`) start; once the loop stopped they stop, the admin API first (requests in
 * flight finish), then the scheduler (attempts in flight finish) and the sender's connections.
 */
@Controller()
export class DeliveriesController implements OnApplicationBootstrap, OnApplicationShutdown {
  private http: NestFastifyApplication | null = null;
  private retirement: NodeJS.Timeout | null = null;

  constructor(
    private readonly fanOut: FanOut,
    private readonly scheduler: DeliveryScheduler,
    private readonly sender: DeliverySender,
    private readonly endpoints: EndpointService,
    private readonly metrics: DispatcherMetrics,
    @Inject(WORKER_CONTEXT) private readonly worker: DispatcherContext,
  ) {}

  /** @returns the batch's items that can never be recorded, for the dead-letter topic. */
  @ConsumeBatches('deliveries', { topics: ['entitlementEvents'], groupCommitAcrossPartitions: true })
  handle(batch: readonly BatchItem[]): ReturnType<FanOut['handleBatch']> {
    return this.fanOut.handleBatch(batch);
  }

  async onApplicationBootstrap(): Promise<void> {
    const { config, logger, pool, health } = this.worker;
    this.scheduler.start();
    this.retirement = setInterval(() => {
      this.endpoints
        .retireExpiredSecrets()
        .catch((error: unknown) => logger.warn({ err: error }, 'expired endpoint secrets could not be deleted; retrying later'));
    }, SECRET_RETIREMENT_INTERVAL_MS);
    this.http = await createAdminApi({
      adminApiKeySha256: config.adminApiKeySha256,
      apiKeySha256: config.apiKeySha256,
      receipts: new PostgresReceiptProofs(pool),
      logger,
      pool,
      endpoints: this.endpoints,
      deliveries: new DeliveryAdmin(pool, this.scheduler),
      metrics: this.metrics,
      apiVersion: packageVersion(ROOT),
      health,
    });
    await this.http.listen(config.http.port, config.http.host);
    logger.info({ url: await this.http.getUrl() }, 'dispatcher admin API listening');
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.retirement) clearInterval(this.retirement);
    await this.http?.close();
    await this.scheduler.stop();
    await this.sender.close();
  }
}

/**
 * The dispatcher: delivers entitlement events to the customer's endpoints (docs/delivery.md).
 * A Kafka worker over `entitlement-events.v1` that records each batch as deliveries in one
 * transaction, a scheduler that attempts due deliveries with per-endpoint isolation, and an
 * HTTP admin API (endpoints, attempts, resend, recovery) with health and metrics.
 */
@Module({
  imports: [
    WorkerModule.forRoot({
      name: 'dispatcher',
      config: loadDispatcherConfig,
      migrations: [DISPATCHER_MIGRATIONS, vaultMigrations(ENDPOINT_VAULT_SCHEMA)],
      produces: ['DeliveryDeadLettered'],
      outboxes: [{ schema: 'dispatcher' }],
    }),
  ],
  controllers: [DeliveriesController],
  providers: [
    { provide: DispatcherMetrics, inject: [WORKER_CONTEXT], useFactory: ({ metrics }: DispatcherContext) => new DispatcherMetrics(metrics) },
    {
      provide: EndpointSecrets,
      inject: [WORKER_CONTEXT],
      // Only the dispatcher holds this vault's master keys: endpoint secrets are readable nowhere else.
      useFactory: ({ pool, logger }: DispatcherContext) =>
        new EndpointSecrets(new CredentialsVault(new PostgresVaultStore(pool, ENDPOINT_VAULT_SCHEMA), loadMasterKeyRing(), { logger })),
    },
    {
      provide: DeliverySender,
      inject: [WORKER_CONTEXT],
      useFactory: ({ config }: DispatcherContext) =>
        new DeliverySender({
          timeoutMs: config.delivery.attemptTimeoutMs,
          connectionsPerEndpoint: config.delivery.maxInFlightPerEndpoint,
          allowPrivateNetworks: config.endpoints.allowPrivateNetworks,
        }),
    },
    {
      provide: DeliveryRepository,
      inject: [WORKER_CONTEXT],
      useFactory: ({ pool, outboxes }: DispatcherContext) => new DeliveryRepository(pool, outboxes.dispatcher.outbox),
    },
    {
      provide: DeliveryScheduler,
      inject: [WORKER_CONTEXT, DeliveryRepository, DeliverySender, EndpointSecrets, DispatcherMetrics],
      useFactory: (
        { config: { delivery }, outboxes, logger }: DispatcherContext,
        repository: DeliveryRepository,
        sender: DeliverySender,
        secrets: EndpointSecrets,
        metrics: DispatcherMetrics,
      ) =>
        new DeliveryScheduler({
          repository,
          sender,
          secrets,
          relay: outboxes.dispatcher.relay,
          metrics,
          logger: logger.child({ component: 'scheduler' }),
          options: {
            maxInFlight: delivery.maxInFlight,
            maxInFlightPerEndpoint: delivery.maxInFlightPerEndpoint,
            leaseMs: delivery.attemptTimeoutMs + 30_000,
            pollIntervalMs: delivery.pollIntervalMs,
            idlePollMaxMs: delivery.idlePollMaxMs,
            flushBatch: 200,
            flushDelayMs: delivery.resultFlushDelayMs,
            retry: delivery.retry,
            disableAfterMs: delivery.disableAfterMs,
          },
        }),
    },
    {
      provide: EndpointService,
      inject: [WORKER_CONTEXT, EndpointSecrets, DeliveryScheduler],
      useFactory: ({ pool, config, logger }: DispatcherContext, secrets: EndpointSecrets, scheduler: DeliveryScheduler) =>
        new EndpointService(new EndpointRepository(pool), secrets, config.endpoints, logger, { onDeliveriesDue: () => scheduler.wake() }),
    },
    {
      provide: FanOut,
      inject: [WORKER_CONTEXT, DeliveryRepository, DeliveryScheduler, DispatcherMetrics],
      useFactory: ({ logger }: DispatcherContext, deliveries: DeliveryRepository, scheduler: DeliveryScheduler, metrics: DispatcherMetrics) =>
        new FanOut(deliveries, scheduler, logger, metrics),
    },
  ],
})
export class DispatcherModule {}
