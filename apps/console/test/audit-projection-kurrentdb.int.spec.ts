/**
 * The audit view as the console runs it under `LEDGER_STORE=kurrentdb`: the AuditTrail contract
 * over EventStoreDB/KurrentDB, read back by `ProjectedAuditLog` from the `AuditProjection`'s read
 * model (PostgreSQL), with the store's per-stream chains verified after the audit appends. It
 * runs against the server KURRENTDB_CONNECTION_STRING names (with docker compose,
 * `docker compose up kurrentdb` and KURRENTDB_CONNECTION_STRING=kurrentdb://127.0.0.1:2113?tls=false),
 * else, where a Docker engine is reachable, against a KurrentDB container it starts itself
 * (`kurrentDbForTests`). These machines have neither (no Docker engine): the suite is skipped,
 * and says so.
 */
import { KurrentDbLedger, verifyStreamChains } from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase, KURRENTDB_START_TIMEOUT_MS, kurrentDbForTests, type RunningKurrentDb } from '@settle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { auditTrailContract } from './audit-trail.contract.js';
import { startProjectedAudit, type ProjectedAudit } from './projected-audit.js';

const kurrentdb = await kurrentDbForTests();

if (typeof kurrentdb !== 'string') {
  let server: RunningKurrentDb;
  let pool: Pool;
  let drop: () => Promise<void>;
  let store: KurrentDbLedger;
  let audit: ProjectedAudit;

  beforeAll(async () => {
    server = await kurrentdb.start();
    const database = await createTestDatabase('settle_console_audit_kurrentdb');
    drop = database.drop;
    pool = createPool(database.url, 4);
    await migrateSchema(pool, CONSOLE_MIGRATIONS);
    store = new KurrentDbLedger(server.connectionString);
    // A fresh read model follows the server's admin streams from the start (earlier runs' too).
    audit = startProjectedAudit(store, pool);
  }, KURRENTDB_START_TIMEOUT_MS);

  afterAll(async () => {
    await audit?.projection.stop();
    await store?.close();
    await pool?.end();
    await drop?.();
    await server?.stop();
  });

  auditTrailContract('projected from KurrentDB (ProjectedAuditLog)', async () => ({
    store,
    log: audit.caughtUpLog,
    verifyChains: async () => {
      // The server keeps no global chain: each stream's chain is checked (docs/ledger.md, "KurrentDB").
      const verification = await verifyStreamChains(store);
      expect(verification.broken).toBeNull();
      expect(verification.checked).toBeGreaterThan(0);
    },
  }));
} else {
  const reason = kurrentdb;
  console.warn(`[console audit projection: KurrentDB] skipped: ${reason}`);
  describe('AuditTrail contract: projected from KurrentDB (ProjectedAuditLog)', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
}
