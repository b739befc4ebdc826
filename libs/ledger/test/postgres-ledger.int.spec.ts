import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LEDGER_MIGRATIONS,
  LEDGER_WRITER_ROLE,
  PostgresLedger,
  PostgresLedgerWriter,
  READ_MODEL_MIGRATIONS,
  verifyLedger,
  type LedgerEventInput,
} from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase, withTriggersOff } from '@settle/testing';
import { ledgerContract } from './ledger.contract.js';
import { ledgerWriterContract } from './ledger-writer.contract.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_ledger');
  drop = db.drop;
  pool = createPool(db.url, 4);
  await migrateSchema(pool, LEDGER_MIGRATIONS);
  await migrateSchema(pool, READ_MODEL_MIGRATIONS);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

ledgerContract('PostgreSQL', () => new PostgresLedger(pool));
ledgerWriterContract(
  'PostgreSQL',
  () => new PostgresLedgerWriter(pool, new PostgresLedger(pool), { enqueue: async () => undefined }, { wake: () => undefined }),
);

describe('PostgreSQL ledger writer: a session is one transaction', () => {
  it('writes nothing of a session that throws, not even its appends', async () => {
    const writer = new PostgresLedgerWriter(pool, new PostgresLedger(pool), { enqueue: async () => undefined }, { wake: () => undefined });
    const stream = `contract-${randomUUID()}`;
    await expect(
      writer.session(async (session) => {
        await session.append([
          {
            streamId: stream,
            events: [{ eventId: randomUUID(), type: 'ContractChecked', data: {}, metadata: { correlationId: 'c', causationId: 'c' } }],
            expected: 'no_stream',
          },
        ]);
        throw new Error('the batch failed half-way');
      }),
    ).rejects.toThrow('half-way');
    expect(await new PostgresLedger(pool).readStream(stream)).toEqual([]);
  });
});

describe('PostgreSQL ledger immutability (enforced by the database)', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of ledger rows', async () => {
    const ledger = new PostgresLedger(pool);
    const stream = `transaction-ref_${randomUUID().slice(0, 8)}`;
    await ledger.append(
      stream,
      [{ eventId: randomUUID(), type: 'TransactionSettled', data: { amount_minor: 1 }, metadata: { correlationId: 'c', causationId: 'c' } }],
      'no_stream',
    );
    await expect(pool.query(`UPDATE ledger.events SET data = '{"amount_minor": 2}' WHERE stream_id = $1`, [stream])).rejects.toThrow(/append-only/);
    await expect(pool.query('DELETE FROM ledger.events WHERE stream_id = $1', [stream])).rejects.toThrow(/append-only/);
    await expect(pool.query('TRUNCATE ledger.events')).rejects.toThrow(/append-only/);
    // The head, which verification checks against, only moves forward.
    await expect(pool.query('UPDATE ledger.head SET position = position - 1')).rejects.toThrow(/only moves forward/);
    await expect(pool.query('DELETE FROM ledger.head')).rejects.toThrow(/only moves forward/);
    const { rows } = await pool.query<{ data: { amount_minor: number } }>('SELECT data FROM ledger.events WHERE stream_id = $1', [stream]);
    expect(rows).toEqual([{ data: { amount_minor: 1 } }]);
  });

  it('refuses UPDATE, DELETE and TRUNCATE to the ledger writer role by permissions, while it can append and read', async () => {
    const stream = `transaction-ref_${randomUUID().slice(0, 8)}`;
    const client = await pool.connect();
    try {
      await client.query(`SET ROLE ${LEDGER_WRITER_ROLE}`);
      const ledger = new PostgresLedger(pool);
      await ledger.appendWith(client, stream, [settled(1)], 'no_stream');
      expect((await client.query('SELECT count(*)::int AS n FROM ledger.events WHERE stream_id = $1', [stream])).rows[0].n).toBe(1);
      for (const statement of [`UPDATE ledger.events SET data = '{}' WHERE stream_id = $1`, 'DELETE FROM ledger.events WHERE stream_id = $1']) {
        await expect(client.query(statement, [stream])).rejects.toThrow(/permission denied for table events/);
      }
      await expect(client.query('TRUNCATE ledger.events')).rejects.toThrow(/permission denied for table events/);
    } finally {
      await client.query('RESET ROLE');
      client.release();
    }
  });

  it('appends a batch of many streams in one call: gapless positions in batch order, a wrong revision fails only its own append', async () => {
    const ledger = new PostgresLedger(pool);
    const [a, b, c] = ['a', 'b', 'c'].map((x) => `transaction-ref_${x}${randomUUID().slice(0, 8)}`) as [string, string, string];
    await ledger.append(b, [settled(1)], 'no_stream');
    const before = await ledger.head();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const outcomes = await ledger.prepareAppendsWith(client, [
        { streamId: a, events: [settled(1)], expected: 'no_stream' },
        { streamId: b, events: [settled(2)], expected: 'no_stream' }, // b exists: refused alone
        { streamId: c, events: [settled(1), settled(2)], expected: 'any' },
        { streamId: a, events: [settled(2)], expected: 0 }, // sees the batch's first append to a
      ]);
      expect(outcomes.map((o) => ('error' in o ? o.error.code : 'done' in o ? 'done' : 'prepared'))).toEqual([
        'prepared',
        'LEDGER.WRONG_EXPECTED_REVISION',
        'prepared',
        'prepared',
      ]);
      const prepared = outcomes.filter((o): o is Exclude<typeof o, { error: unknown } | { done: unknown }> => !('error' in o) && !('done' in o));
      const written = await ledger.writePreparedMany(client, prepared);
      await client.query('COMMIT');
      expect(written.map((w) => [w.nextExpectedRevision, w.positions])).toEqual([
        [0, [before.position + 1]],
        [1, [before.position + 2, before.position + 3]],
        [1, [before.position + 4]],
      ]);
    } finally {
      client.release();
    }
    expect((await ledger.readStream(a)).map((e) => e.revision)).toEqual([0, 1]);
    expect(await ledger.readStream(b)).toHaveLength(1);
    expect((await ledger.head()).position).toBe(before.position + 4);
    expect((await verifyLedger(ledger)).broken).toBeNull();
  });

  it('stores an event delivered twice at once (two projector instances around a rebalance) once, and reports the second as a duplicate', async () => {
    const ledger = new PostgresLedger(pool);
    for (const existing of [false, true]) {
      const stream = `transaction-ref_${randomUUID().slice(0, 8)}`;
      if (existing) await ledger.append(stream, [settled(1)], 'no_stream');
      const e = settled(2);
      const expected = existing ? 0 : 'no_stream';
      const results = await Promise.all([ledger.append(stream, [e], expected), ledger.append(stream, [e], expected)]);
      expect(results.map((r) => r.duplicate).sort()).toEqual([false, true]);
      expect(await ledger.readStream(stream)).toHaveLength(existing ? 2 : 1);
    }
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

const settled = (amount: number): LedgerEventInput => ({
  eventId: randomUUID(),
  type: 'TransactionSettled',
  data: { amount_minor: amount, currency: 'NGN' },
  metadata: { correlationId: 'c', causationId: 'c' },
});

/** Verifies the whole ledger of a database, returning the first break. */
const firstBreak = async (p: Pool) => (await verifyLedger(new PostgresLedger(p))).broken;

describe('PostgreSQL ledger tamper evidence (SHA-256 chains per stream and global)', () => {
  let tamper: Pool;
  let dropTamper: () => Promise<void>;
  const streams = ['transaction-ref_a', 'transaction-ref_b'];

  beforeAll(async () => {
    const db = await createTestDatabase('settle_ledger_tamper');
    dropTamper = db.drop;
    tamper = createPool(db.url, 2);
    await migrateSchema(tamper, LEDGER_MIGRATIONS);
  });

  afterAll(async () => {
    await tamper?.end();
    await dropTamper?.();
  });

  /** Fresh ledger content: a, b, a, b, a (positions 1 to 5). */
  async function fill(): Promise<void> {
    const ledger = new PostgresLedger(tamper);
    for (let i = 0; i < 5; i++) {
      const s = streams[i % 2]!;
      await ledger.append(s, [settled(100 + i)], 'any');
    }
  }

  /** As a superuser with triggers off (what an attacker with the database's keys could do). */
  const asAttacker = (sql: string) => withTriggersOff(tamper, sql);

  async function reset(): Promise<void> {
    await asAttacker("DELETE FROM ledger.events; DELETE FROM ledger.streams; UPDATE ledger.head SET position = 0, global_hash = repeat('0', 64)");
    await fill();
  }

  it('verifies an untouched ledger', async () => {
    await reset();
    expect(await firstBreak(tamper)).toBeNull();
  });

  it('finds an edited amount at the edited event', async () => {
    await reset();
    await asAttacker(`UPDATE ledger.events SET data = jsonb_set(data, '{amount_minor}', '999') WHERE position = 3`);
    expect(await firstBreak(tamper)).toMatchObject({ position: 3, reason: 'STREAM_HASH_MISMATCH' });
  });

  it('finds a deleted event where the positions jump', async () => {
    await reset();
    await asAttacker('DELETE FROM ledger.events WHERE position = 2');
    expect(await firstBreak(tamper)).toMatchObject({ position: 3, reason: 'POSITION_GAP' });
  });

  it('finds the newest events deleted, by the head', async () => {
    await reset();
    await asAttacker('DELETE FROM ledger.events WHERE position >= 4');
    expect(await firstBreak(tamper)).toMatchObject({ reason: 'HEAD_MISMATCH', position: 5 });
  });

  it('finds a head wound back to hide the newest events', async () => {
    await reset();
    await asAttacker('UPDATE ledger.head SET position = 3');
    expect(await firstBreak(tamper)).toMatchObject({ reason: 'HEAD_MISMATCH', position: 3 });
  });

  it('finds two events swapped (positions and hashes kept), by the chain', async () => {
    await reset();
    await asAttacker(`UPDATE ledger.events SET data = CASE position WHEN 1 THEN (SELECT data FROM ledger.events WHERE position = 3)
                                                         ELSE (SELECT data FROM ledger.events WHERE position = 1) END
                      WHERE position IN (1, 3)`);
    expect(await firstBreak(tamper)).toMatchObject({ position: 1, reason: 'STREAM_HASH_MISMATCH' });
  });
});
