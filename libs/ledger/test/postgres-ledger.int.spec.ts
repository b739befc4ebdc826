import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_DDL, PostgresLedger } from '@settle/ledger';
import { createPool, migrate, type Pool } from '@settle/platform';
import { createTestDatabase } from '../../../scripts/harness/infra.js';
import { ledgerContract } from './ledger.contract.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_ledger');
  drop = db.drop;
  pool = createPool(db.url, 4);
  await migrate(pool, 'ledger', LEDGER_DDL);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

ledgerContract('PostgreSQL', () => new PostgresLedger(pool));

describe('PostgreSQL ledger immutability (enforced by the database)', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of ledger rows', async () => {
    const ledger = new PostgresLedger(pool);
    const stream = `transaction-ref_${randomUUID().slice(0, 8)}`;
    await ledger.append(stream, [{ eventId: randomUUID(), type: 'TransactionSettled', data: { amount_minor: 1 }, metadata: { correlationId: 'c', causationId: 'c' } }], 'no_stream');
    await expect(pool.query(`UPDATE ledger.events SET data = '{"amount_minor": 2}' WHERE stream_id = $1`, [stream])).rejects.toThrow(/append-only/);
    await expect(pool.query('DELETE FROM ledger.events WHERE stream_id = $1', [stream])).rejects.toThrow(/append-only/);
    await expect(pool.query('TRUNCATE ledger.events')).rejects.toThrow(/append-only/);
    const { rows } = await pool.query<{ data: { amount_minor: number } }>('SELECT data FROM ledger.events WHERE stream_id = $1', [stream]);
    expect(rows).toEqual([{ data: { amount_minor: 1 } }]);
  });

  it('lets exactly one of two concurrent appends at the same revision win', async () => {
    const ledger = new PostgresLedger(pool);
    const stream = `transaction-ref_${randomUUID().slice(0, 8)}`;
    const make = () => ({ eventId: randomUUID(), type: 'TransactionSettled', data: {}, metadata: { correlationId: 'c', causationId: 'c' } });
    const results = await Promise.allSettled([ledger.append(stream, [make()], 'no_stream'), ledger.append(stream, [make()], 'no_stream')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await ledger.readStream(stream)).toHaveLength(1);
  });
});
