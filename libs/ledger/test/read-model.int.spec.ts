import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEntitlements, findTransactionStatus, READ_MODEL_MIGRATIONS, ReadModelNotReadyError } from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';

/**
 * The read models' readers (ingestion's checkout status and entitlement API) on a database
 * where the ledger projector, which owns `read_model`, has not booted yet: a stable, transient
 * error instead of a bare "relation does not exist"; once migrated, ordinary answers.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase('settle_read_model');
  pool = createPool(database.url, 2);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('read model readers', () => {
  it('throw ReadModelNotReadyError (READ_MODEL.NOT_READY, unavailable) until the schema is migrated', async () => {
    await expect(findEntitlements(pool, 'user_1')).rejects.toBeInstanceOf(ReadModelNotReadyError);
    await expect(findTransactionStatus(pool, 'ref_1')).rejects.toMatchObject({ code: 'READ_MODEL.NOT_READY', kind: 'unavailable' });
  });

  it('answer normally once the ledger projector migrated read_model', async () => {
    await migrateSchema(pool, READ_MODEL_MIGRATIONS);
    expect(await findEntitlements(pool, 'user_1')).toEqual([]);
    expect(await findTransactionStatus(pool, 'ref_1')).toBeNull();
  });

  it('let other errors through unchanged', async () => {
    // A missing column is a bad statement, not a missing read model.
    await pool.query('ALTER TABLE read_model.transaction_status RENAME COLUMN state TO state_renamed');
    try {
      const error: unknown = await findTransactionStatus(pool, 'ref_1').catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(ReadModelNotReadyError);
      expect(error).toMatchObject({ code: '42703' });
    } finally {
      await pool.query('ALTER TABLE read_model.transaction_status RENAME COLUMN state_renamed TO state');
    }
  });
});
