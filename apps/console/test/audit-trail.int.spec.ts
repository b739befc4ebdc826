/** The AuditTrail contract on PostgreSQL: the ledger's own migrations (0003 indexes admin-action requests), read back by PostgresAuditLog. */
import { LEDGER_MIGRATIONS, PostgresLedger, verifyLedger } from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '@settle/testing';
import { LedgerAuditTrail } from '../src/audit/ledger-audit-trail.js';
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

it("PostgreSQL's own refusal of a value it cannot store (a NUL) is invalid input, not the audit trail unavailable", async () => {
  const trail = new LedgerAuditTrail(new PostgresLedger(pool), new PostgresAuditLog(pool), pino({ level: 'silent' }));
  let ran = false;
  const refused = trail.run(
    { actor: { email: 'ops@example.com', role: 'admin' }, action: 'user.create', target: { kind: 'user', id: 'a\u0000@example.com' } },
    async () => {
      ran = true;
    },
  );
  await expect(refused).rejects.toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
  expect(ran).toBe(false);
});
