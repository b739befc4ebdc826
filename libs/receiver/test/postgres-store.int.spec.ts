import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresReceiverStore, receiverDdl } from '../src/postgres-store.js';
import { createTestDatabase, freshPostgresStore } from './support/infra.js';
import { completeOne, storeContract } from './store.contract.js';

let pool: pg.Pool;
let url: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase('settle_receiver');
  drop = db.drop;
  url = db.url;
  pool = new pg.Pool({ connectionString: db.url, max: 10 });
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

storeContract('PostgreSQL', () => freshPostgresStore(pool));
storeContract('PostgreSQL with prepared statements', () => freshPostgresStore(pool, undefined, { preparedStatements: true }));

describe('prepared statements (README, "Prepared statements")', () => {
  /** One delivery through a pool of one connection: record, claim, complete; then that connection's prepared statements. */
  async function deliverOnce(options: { preparedStatements?: boolean }) {
    const one = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const store = await freshPostgresStore(one, undefined, options);
      const eventId = randomUUID();
      const grant = { userId: `user-${eventId}`, entitlement: 'pro-monthly', expiresAt: 1_000, revision: null };
      expect(await store.record({ eventId, kind: 'subscription_started', payload: { event_id: eventId }, state: 'pending', grant, now: 0 })).toBe('recorded');
      expect(await store.record({ eventId, kind: 'subscription_started', payload: { event_id: eventId }, state: 'pending', grant, now: 0 })).toBe('duplicate');
      const leases = await store.claim({ now: 0, leaseMs: 30_000, limit: 10 });
      expect(leases.map((l) => l.eventId)).toEqual([eventId]);
      expect((await store.completeBatch(leases, { now: 1 }, async () => undefined)).map((c) => c.outcome)).toEqual(['processed']);
      expect(await store.find(eventId)).toMatchObject({ state: 'processed' });
      expect(await store.accessExpiry(grant.userId, 'pro-monthly')).toEqual(new Date(1_000));
      return (await one.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name);
    } finally {
      await one.end();
    }
  }

  it('prepares the record, the claim and the completion on the connection when asked', async () => {
    const names = await deliverOnce({ preparedStatements: true });
    expect(names).toHaveLength(4);
    for (const name of names) expect(name).toMatch(/^settle_receiver_[0-9a-f]{24}$/);
  });

  it('prepares nothing by default (a pooler in transaction mode may not keep them)', async () => {
    expect(await deliverOnce({})).toEqual([]);
  });
});

describe('PostgreSQL receiver store', () => {
  it('commits handler writes through the transaction with the processed mark; a throwing handler rolls its writes back', async () => {
    const store = await freshPostgresStore(pool);
    await pool.query('CREATE TABLE IF NOT EXISTS handler_writes (event_id text NOT NULL)');
    const eventId = randomUUID();
    const grant = { userId: `user-${eventId}`, entitlement: 'pro-monthly', expiresAt: 1_000, revision: null };
    await store.record({ eventId, kind: 'subscription_started', payload: { event_id: eventId }, state: 'pending', grant, now: 0 });
    const [lease] = await store.claim({ now: 0, leaseMs: 30_000, limit: 1 });
    await expect(
      completeOne(store, lease!, { now: 1 }, async (tx) => {
        await tx.query('INSERT INTO handler_writes VALUES ($1)', [eventId]);
        throw new Error('handler broke after writing');
      }),
    ).rejects.toThrow('handler broke');
    expect((await pool.query('SELECT * FROM handler_writes WHERE event_id = $1', [eventId])).rowCount).toBe(0);
    expect(await store.accessExpiry(grant.userId, 'pro-monthly')).toEqual(new Date(1_000));
    expect(await store.find(eventId)).toMatchObject({ state: 'processing' });

    await completeOne(store, lease!, { now: 2 }, async (tx) => {
      await tx.query('INSERT INTO handler_writes VALUES ($1)', [eventId]);
    });
    expect((await pool.query('SELECT * FROM handler_writes WHERE event_id = $1', [eventId])).rowCount).toBe(1);
    expect(await store.accessExpiry(grant.userId, 'pro-monthly')).toEqual(new Date(1_000));
    expect(await store.find(eventId)).toMatchObject({ state: 'processed' });
  });

  it('completes a batch in one transaction: the processed events commit with their writes, a failed event rolls back alone', async () => {
    const store = await freshPostgresStore(pool);
    await pool.query('CREATE TABLE IF NOT EXISTS handler_writes (event_id text NOT NULL)');
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, eventId] of ids.entries()) {
      await store.record({ eventId, kind: 'subscription_started', payload: { event_id: eventId }, state: 'pending', grant: null, now: i });
    }
    const leases = await store.claim({ now: 10, leaseMs: 30_000, limit: 10 });
    const visible: number[] = [];
    const completions = await store.completeBatch(leases, { now: 11 }, async (lease, tx) => {
      await tx.query('INSERT INTO handler_writes VALUES ($1)', [lease.eventId]);
      // Another connection sees none of the batch's writes before its one commit.
      visible.push((await pool.query('SELECT 1 FROM handler_writes WHERE event_id = ANY ($1::text[])', [ids])).rowCount ?? -1);
      if (lease.eventId === ids[1]) await tx.query('SELECT 1/0'); // a SQL error the handler does not catch
    });
    expect(completions.map((c) => c.outcome)).toEqual(['processed', 'failed', 'processed']);
    expect(visible).toEqual([0, 0, 0]);
    const written = await pool.query<{ event_id: string }>('SELECT event_id FROM handler_writes WHERE event_id = ANY ($1::text[])', [ids]);
    expect(written.rows.map((row) => row.event_id).sort()).toEqual([ids[0], ids[2]].sort());
    expect((await store.counts()).processed).toBe(2);
    expect(await store.find(ids[1]!)).toMatchObject({ state: 'processing' });
  });

  it('a batch whose connection ends mid-way commits nothing: every event stays processing', async () => {
    const store = await freshPostgresStore(pool);
    await pool.query('CREATE TABLE IF NOT EXISTS handler_writes (event_id text NOT NULL)');
    const ids = [randomUUID(), randomUUID()];
    for (const eventId of ids) {
      await store.record({ eventId, kind: 'subscription_started', payload: { event_id: eventId }, state: 'pending', grant: null, now: 0 });
    }
    const leases = await store.claim({ now: 10, leaseMs: 30_000, limit: 10 });
    await expect(
      store.completeBatch(leases, { now: 11 }, async (lease, tx) => {
        await tx.query('INSERT INTO handler_writes VALUES ($1)', [lease.eventId]);
        // The second event's handler is cut off: PostgreSQL ends the batch's connection (a failover).
        if (lease.eventId === leases[1]!.eventId) await pool.query('SELECT pg_terminate_backend($1)', [(tx as unknown as { processID: number }).processID]);
      }),
    ).rejects.toThrow();
    expect((await pool.query('SELECT 1 FROM handler_writes WHERE event_id = ANY ($1::text[])', [ids])).rowCount).toBe(0);
    for (const eventId of ids) expect(await store.find(eventId)).toMatchObject({ state: 'processing' });
  });

  it('a handler that swallows its own SQL error: the run fails, its writes roll back, the access stands', async () => {
    const store = await freshPostgresStore(pool);
    await pool.query('CREATE TABLE IF NOT EXISTS handler_writes (event_id text NOT NULL)');
    const eventId = randomUUID();
    const grant = { userId: `user-${eventId}`, entitlement: 'pro-monthly', expiresAt: 1_000, revision: null };
    await store.record({ eventId, kind: 'subscription_started', payload: { event_id: eventId }, state: 'pending', grant, now: 0 });
    const [lease] = await store.claim({ now: 0, leaseMs: 30_000, limit: 1 });
    await expect(
      completeOne(store, lease!, { now: 1 }, async (tx) => {
        await tx.query('INSERT INTO handler_writes VALUES ($1)', [eventId]);
        await tx.query('SELECT 1/0').catch(() => undefined); // the transaction is now aborted
      }),
    ).rejects.toThrow(/aborted/);
    expect((await pool.query('SELECT * FROM handler_writes WHERE event_id = $1', [eventId])).rowCount).toBe(0);
    expect(await store.accessExpiry(grant.userId, 'pro-monthly')).toEqual(new Date(1_000));
    expect(await store.find(eventId)).toMatchObject({ state: 'processing' });
  });

  it('migrate() applies the access of events a kit before 0.2 recorded and had not processed (it applied access only then)', async () => {
    const schema = `receiver_${randomUUID().slice(0, 8)}`;
    const store = await freshPostgresStore(pool, schema);
    const user = `user-${randomUUID()}`;
    const event = (expiresAt: string, state: string) => {
      const eventId = randomUUID();
      return pool.query(
        `INSERT INTO ${schema}.events (event_id, kind, payload, state, received_at, available_at, lease_token, finished_at)
         VALUES ($1, 'subscription_renewed', $2, $3, now(), CASE WHEN $3 IN ('pending', 'processing') THEN now() END,
                 CASE WHEN $3 = 'processing' THEN gen_random_uuid() END, CASE WHEN $3 = 'processed' THEN now() END)`,
        [
          eventId,
          JSON.stringify({ event_id: eventId, event: 'subscription_renewed', user_id: user, entitlement: 'pro-monthly', expires_at: expiresAt }),
          state,
        ],
      );
    };
    // As 0.1 left them: a processed event (its access applied), then two recorded, not yet processed.
    await event('2027-01-10T00:00:00.000Z', 'processed');
    await pool.query(`INSERT INTO ${schema}.access VALUES ($1, 'pro-monthly', '2027-01-10T00:00:00Z', 'old', now())`, [user]);
    await event('2027-03-10T00:00:00.000Z', 'pending');
    await event('2027-02-10T00:00:00.000Z', 'processing');
    await store.migrate();
    expect(await store.accessExpiry(user, 'pro-monthly')).toEqual(new Date('2027-03-10T00:00:00.000Z'));
    await store.migrate();
    expect(await store.accessExpiry(user, 'pro-monthly')).toEqual(new Date('2027-03-10T00:00:00.000Z'));
  });

  it('applies its DDL idempotently, from several processes at once', async () => {
    const schema = `receiver_ddl_${randomUUID().slice(0, 8)}`;
    await Promise.all(Array.from({ length: 4 }, () => new PostgresReceiverStore(pool, { schema }).migrate()));
    await new PostgresReceiverStore(pool, { schema }).migrate();
    const { rows } = await pool.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema]);
    expect(rows).toEqual([{ table_name: 'access' }, { table_name: 'events' }]);
    expect(receiverDdl(schema)).toContain(`CREATE TABLE IF NOT EXISTS ${schema}.events`);
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => new PostgresReceiverStore(pool, { schema: 'x; DROP TABLE y' })).toThrow(/lower-case SQL identifier/);
  });
});
