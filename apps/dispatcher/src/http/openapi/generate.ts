import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { INERT_DATABASE_URL, packageVersion } from '@settle/http';
import { PostgresReceiptProofs } from '@settle/ledger';
import { createPool, HealthProbes, type Pool } from '@settle/platform';
import { CredentialsVault, generateKey, MasterKeyRing, PostgresVaultStore } from '@settle/vault';
import { pino } from 'pino';
import { DeliveryAdmin } from '../../deliveries/delivery-admin.js';
import { DispatcherMetrics } from '../../dispatcher.metrics.js';
import { EndpointSecrets } from '../../endpoints/endpoint-secrets.js';
import { EndpointRepository } from '../../endpoints/endpoint.repository.js';
import { EndpointService } from '../../endpoints/endpoint.service.js';
import { ENDPOINT_VAULT_SCHEMA } from '../../schema.js';
import { ADMIN_API_CONTROLLERS, createAdminApi } from '../admin-api.module.js';
import { dispatcherOpenApiDocument } from './document.js';

/**
 * The dispatcher's admin API over inert adapters (a pool that never connects, a vault under a
 * throw-away master key, a scheduler that is never woken), never listening: for reading its
 * routes and document. The caller closes it, then the returned pool.
 *
 * @param root - the repository's root (for the version in package.json).
 */
export async function createInertAdminApi(root: string): Promise<{ app: NestFastifyApplication; pool: Pool }> {
  const logger = pino({ level: 'silent' });
  const pool = createPool(INERT_DATABASE_URL, 1);
  const vault = new CredentialsVault(new PostgresVaultStore(pool, ENDPOINT_VAULT_SCHEMA), MasterKeyRing.from([['v1', generateKey()]]));
  const app = await createAdminApi({
    adminApiKeySha256: [],
    apiKeySha256: [],
    receipts: new PostgresReceiptProofs(pool),
    logger,
    pool,
    endpoints: new EndpointService(
      new EndpointRepository(pool),
      new EndpointSecrets(vault),
      { allowHttp: false, allowPrivateNetworks: false, rotationOverlapMs: 0 },
      logger,
    ),
    deliveries: new DeliveryAdmin(pool, { wake: () => undefined }),
    metrics: new DispatcherMetrics(),
    health: new HealthProbes([]),
    apiVersion: packageVersion(root),
  });
  return { app, pool };
}

/**
 * Builds the dispatcher admin API's OpenAPI document from its controllers, without a database
 * ({@link createInertAdminApi}).
 *
 * @param root - the repository's root (for the version in package.json).
 */
export async function buildDispatcherOpenApi(root: string): Promise<OpenAPIObject> {
  const { app, pool } = await createInertAdminApi(root);
  try {
    return dispatcherOpenApiDocument(app, packageVersion(root), ADMIN_API_CONTROLLERS);
  } finally {
    await app.close();
    await pool.end();
  }
}
