import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Secret } from '@settle/config';
import { INERT_DATABASE_URL, packageVersion } from '@settle/http';
import { InMemoryLedger } from '@settle/ledger';
import { createPool, type Pool } from '@settle/platform';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { pino } from 'pino';
import { StoreScanAuditLog } from '../../audit/ledger-audit-trail.js';
import { MemoryAuthStore } from '../../auth/memory-auth-store.js';
import { composeConsole } from '../../compose.js';
import { createConsoleApp } from '../../console-app.js';
import { IngestionReconciler } from '../../reconcile/ingestion-reconciler.js';
import { MemoryProposalStore } from '../../approvals/proposal-store.port.js';
import { CONSOLE_CONTROLLERS } from '../console-api.module.js';
import { consoleOpenApiDocument } from './document.js';

/**
 * The console's app over inert adapters (a pool that never connects, an in-memory ledger and
 * user store, an unreachable ingestion), never listening: for reading its routes and document.
 * The caller closes it, then the returned pool.
 */
export async function createInertConsoleApp(root: string): Promise<{ app: NestFastifyApplication; pool: Pool }> {
  const logger = pino({ level: 'silent' });
  const pool = createPool(INERT_DATABASE_URL, 1);
  const ledger = new InMemoryLedger();
  const app = await createConsoleApp({
    logger,
    pool,
    ...composeConsole({
      pool,
      ledger,
      auditLog: new StoreScanAuditLog(ledger),
      authStore: new MemoryAuthStore(),
      logger,
      sessionTtlMs: 60_000,
      proposals: new MemoryProposalStore(),
      ingestion: { baseUrl: 'http://127.0.0.1:1', adminApiKey: new Secret('unused') },
    }),
    reconciler: new IngestionReconciler({ baseUrl: 'http://127.0.0.1:1', adminApiKey: new Secret('unused') }),
    cookies: { secure: true },
    webDir: join(tmpdir(), 'settle-console-openapi-no-web'),
    apiVersion: packageVersion(root),
  });
  return { app, pool };
}

/**
 * Builds the console's OpenAPI document from its controllers, without a database or ingestion
 * ({@link createInertConsoleApp}).
 *
 * @param root - the repository's root (for the version in package.json).
 */
export async function buildConsoleOpenApi(root: string): Promise<OpenAPIObject> {
  const { app, pool } = await createInertConsoleApp(root);
  try {
    return consoleOpenApiDocument(app, packageVersion(root), CONSOLE_CONTROLLERS);
  } finally {
    await app.close();
    await pool.end();
  }
}
