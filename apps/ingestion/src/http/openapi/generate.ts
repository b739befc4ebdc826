import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadIngestionConfig } from '@settle/config';
import { INERT_DATABASE_URL, packageVersion } from '@settle/http';
import { AvroCodec, Outbox, topicNames } from '@settle/messaging';
import { createPool, HealthProbes, type Pool } from '@settle/platform';
import { webhookAuthenticators } from '@settle/providers';
import { pino } from 'pino';
import { createIngestionApp } from '../../ingestion-app.js';
import { INGESTION_CONTROLLERS } from '../../ingestion.module.js';
import { ingestionOpenApiDocument } from './document.js';

/** A registry and brokers nothing listens on: the inert app never connects to them. */
const NOWHERE = 'http://127.0.0.1:1';

/**
 * Ingestion's app over inert adapters (a pool that never connects, an outbox whose codec never
 * reaches a registry, no webhook secrets, a relay that is never woken), never listening: for
 * reading its routes and document. The caller closes it, then the returned pool.
 *
 * @param root - the repository's root (for the version in package.json).
 */
export async function createInertIngestionApp(root: string): Promise<{ app: NestFastifyApplication; pool: Pool }> {
  const config = loadIngestionConfig({
    DATABASE_URL: INERT_DATABASE_URL,
    KAFKA_BROKERS: '127.0.0.1:1',
    SCHEMA_REGISTRY_URL: NOWHERE,
    SETTLE_API_KEY_SHA256: '0'.repeat(64),
    LOG_LEVEL: 'fatal',
  });
  const pool = createPool(INERT_DATABASE_URL, 1);
  const topics = topicNames('openapi');
  const app = await createIngestionApp(
    {
      config,
      logger: pino({ level: 'silent' }),
      pool,
      outbox: new Outbox('ingestion', topics, AvroCodec.connect(NOWHERE, topics)),
      relay: { wake: () => undefined },
      webhookSecrets: { candidates: () => [] },
      webhookAuthenticators: webhookAuthenticators({}),
      health: new HealthProbes([]),
    },
    packageVersion(root),
  );
  return { app, pool };
}

/**
 * Builds ingestion's OpenAPI document from its controllers, without a database, Kafka or the
 * registry ({@link createInertIngestionApp}).
 *
 * @param root - the repository's root (for the version in package.json).
 */
export async function buildIngestionOpenApi(root: string): Promise<OpenAPIObject> {
  const { app, pool } = await createInertIngestionApp(root);
  try {
    return ingestionOpenApiDocument(app, packageVersion(root), INGESTION_CONTROLLERS);
  } finally {
    await app.close();
    await pool.end();
  }
}
