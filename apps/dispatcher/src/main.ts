import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadDispatcherConfig } from '@settle/config';
import { packageVersion } from '@settle/http';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { defineWorker, runWorker } from '@settle/worker';
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

/** The repository (or image) root, from `dist/apps/dispatcher/src/main.js`: its package.json names the version. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** How often expired previous secrets (after a rotation's overlap) are deleted, milliseconds. */
const SECRET_RETIREMENT_INTERVAL_MS = 60_000;

/**
 * The dispatcher: delivers entitlement events to the customer's endpoints (docs/delivery.md).
 * A Kafka worker over `entitlement-events.v1` that records each batch as deliveries in one
 * transaction, a scheduler that attempts due deliveries with per-endpoint isolation, and an
 * HTTP admin API (endpoints, attempts, resend, recovery) with health and metrics.
 */
const dispatcher = defineWorker({
  name: 'dispatcher',
  config: loadDispatcherConfig,
  migrations: [DISPATCHER_MIGRATIONS, vaultMigrations(ENDPOINT_VAULT_SCHEMA)],
  produces: ['DeliveryDeadLettered'],
  outboxes: [{ schema: 'dispatcher' }],
  setup: ({ config, pool, topics, logger, metrics: registry, outboxes, health }) => {
    // Only the dispatcher holds this vault's master keys: endpoint secrets are readable nowhere else.
    const vault = new CredentialsVault(new PostgresVaultStore(pool, ENDPOINT_VAULT_SCHEMA), loadMasterKeyRing(), { logger });
    const secrets = new EndpointSecrets(vault);
    const metrics = new DispatcherMetrics(registry);
    const { delivery } = config;
    const sender = new DeliverySender({
      timeoutMs: delivery.attemptTimeoutMs,
      connectionsPerEndpoint: delivery.maxInFlightPerEndpoint,
      allowPrivateNetworks: config.endpoints.allowPrivateNetworks,
    });
    const deliveries = new DeliveryRepository(pool, outboxes.dispatcher.outbox);
    const scheduler = new DeliveryScheduler({
      repository: deliveries,
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
        flushBatch: 200,
        flushDelayMs: 5,
        retry: delivery.retry,
        disableAfterMs: delivery.disableAfterMs,
      },
    });
    const endpoints = new EndpointService(new EndpointRepository(pool), secrets, config.endpoints, logger);
    const fanOut = new FanOut(deliveries, scheduler, logger, metrics);
    let http: NestFastifyApplication | null = null;
    let retirement: NodeJS.Timeout | null = null;
    return {
      consumers: [{ topics: [topics.entitlementEvents], handleBatch: (items) => fanOut.handleBatch(items), groupCommitAcrossPartitions: true }],
      start: async () => {
        scheduler.start();
        retirement = setInterval(() => {
          endpoints
            .retireExpiredSecrets()
            .catch((error: unknown) => logger.warn({ err: error }, 'expired endpoint secrets could not be deleted; retrying later'));
        }, SECRET_RETIREMENT_INTERVAL_MS);
        http = await createAdminApi({
          adminApiKeySha256: config.adminApiKeySha256,
          logger,
          pool,
          endpoints,
          deliveries: new DeliveryAdmin(pool, scheduler),
          metrics,
          apiVersion: packageVersion(ROOT),
          health,
        });
        await http.listen(config.http.port, config.http.host);
        logger.info({ url: await http.getUrl() }, 'dispatcher admin API listening');
      },
      stop: async () => {
        if (retirement) clearInterval(retirement);
        await http?.close();
        await scheduler.stop();
        await sender.close();
      },
    };
  },
});

runWorker(dispatcher);
