/** The AuditTrail contract on PostgreSQL: the ledger's own migrations (0003 indexes admin-action requests), read back by PostgresAuditLog. */
import { LEDGER_MIGRATIONS, PostgresLedger, verifyLedger } from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase } from '../../../scripts/harness/infra.js';
import { PostgresAuditLog } from '../src/audit/postgres-audit-log.js';
import { auditTrailContract } from './audit-trail.contract.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_audit');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchema(pool, LEDGER_MIGRATIONS);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

auditTrailContract('PostgreSQL', async () => {
  const store = new PostgresLedger(pool);
  return {
    store,
    log: new PostgresAuditLog(pool),
    verifyChains: async () => {
      const verification = await verifyLedger(store);
      expect(verification.broken).toBeNull();
      expect(verification.checked).toBeGreaterThan(0);
    },
  };
});
