/**
 * One port, two stores (docs/ledger.md): the projector over an event store whose append is its
 * own commit (the in-memory store standing in for KurrentDB, which these machines cannot run)
 * with the checkpointed `$all` projection into real PostgreSQL ends with the same read models
 * and the same outbox messages as the projector over PostgreSQL, and projects every event
 * exactly once in effect: across a failed page, two projector instances, redeliveries, and a
 * crash between a settlement's append and its grant's. Real PostgreSQL and schema registry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointedLedgerProjection,
  entitlementStream,
  EventStoreLedgerWriter,
  InMemoryLedger,
  LEDGER_MIGRATIONS,
  PostgresLedger,
  PostgresLedgerWriter,
  READ_MODEL_MIGRATIONS,
  upsertLatestVerifications,
  type LedgerStore,
} from '@settle/ledger';
import { AvroCodec, Outbox, topicNames, type OutboxMessage } from '@settle/messaging';
import { createLogger, createPool, migrateSchemas, type Pool, type PoolClient } from '@settle/platform';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { ProjectionService } from '../src/projection.service.js';
import { projectHistories, result } from './fixtures.js';

const logger = createLogger('event-store-projection', 'fatal');
const databases: Array<{ pool: Pool; drop: () => Promise<void> }> = [];
let outbox: Outbox;

beforeAll(async () => {
  const topics = topicNames(uniqueTopicPrefix('es-projection'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['SettlementRecorded', 'EntitlementGranted']);
  outbox = new Outbox('ledger', topics, codec);
});

afterAll(async () => {
  for (const { pool, drop } of databases) {
    await pool.end();
    await drop();
  }
});

async function database(): Promise<Pool> {
  const created = await createTestDatabase('settle_es_projection');
  const pool = createPool(created.url, 6);
  databases.push({ pool, drop: created.drop });
  await migrateSchemas(pool, [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  return pool;
}

/** The projector on an event store, and the projection that follows it into `pool`. */
function onEventStore(pool: Pool, store: LedgerStore = new InMemoryLedger(), projectionOutbox: Pick<Outbox, 'enqueue'> = outbox) {
  const projection = new CheckpointedLedgerProjection(pool, store, projectionOutbox, { wake: () => undefined }, logger, { pageSize: 7 });
  const service = new ProjectionService(new EventStoreLedgerWriter(store, (rows) => upsertLatestVerifications(pool, rows)), logger);
  return { store, projection, service };
}

/** Projects pages until caught up; the number of events projected. */
async function drain(projection: CheckpointedLedgerProjection): Promise<number> {
  let total = 0;
  for (let n = await projection.projectPage(); n > 0; n = await projection.projectPage()) total += n;
  return total;
}

const snapshot = async (pool: Pool, table: string) =>
  (await pool.query(`SELECT * FROM read_model.${table} ORDER BY ${table === 'entitlements' ? 'user_id, entitlement' : 'reference'}`)).rows;

/** The outbox's messages, by event id, without the relay's bookkeeping. */
async function published(pool: Pool): Promise<Array<{ type: string; key: string; payload: Record<string, unknown> }>> {
  const { rows } = await pool.query<{ event_type: string; message_key: string; payload: Record<string, unknown> }>(
    `SELECT event_type, message_key, payload FROM ledger.outbox ORDER BY payload->>'event_id'`,
  );
  return rows.map((r) => ({ type: r.event_type, key: r.message_key, payload: r.payload }));
}

describe('the projector on an event store with the checkpointed projection', () => {
  it('ends with the read models and messages the PostgreSQL store commits, each event projected once', async () => {
    const [onPostgres, onEvents] = [await database(), await database()];
    await projectHistories(
      new ProjectionService(new PostgresLedgerWriter(onPostgres, new PostgresLedger(onPostgres), outbox, { wake: () => undefined }), logger),
    );
    const { store, projection, service } = onEventStore(onEvents);
    await projectHistories(service);
    // Nothing is projected before the projection runs: the appends alone are the commit.
    expect(await snapshot(onEvents, 'transaction_status')).toEqual([]);
    expect(await drain(projection)).toBe(48);
    expect(await projection.checkpoint()).toBe((await store.readAll(0, 100)).at(-1)!.position);

    for (const table of ['transaction_status', 'latest_verification', 'entitlements']) {
      expect(await snapshot(onEvents, table)).toEqual(await snapshot(onPostgres, table));
    }
    // Positions differ by store; so does the receipt: PostgreSQL's records carry the stream hash, an event store's none (docs/ledger.md, "Receipts").
    const withoutPosition = (messages: Awaited<ReturnType<typeof published>>) =>
      messages.map(({ payload: { ledger_stream_hash: _receipt, ...payload }, ...m }) => ({ ...m, payload: { ...payload, ledger_position: 0 } }));
    const messages = await published(onEvents);
    expect(messages.filter((m) => m.type === 'SettlementRecorded')).toHaveLength(40);
    expect(messages.filter((m) => m.type === 'EntitlementGranted')).toHaveLength(8);
    expect(messages.filter((m) => m.type === 'EntitlementGranted').every((m) => m.payload.ledger_stream_hash === null)).toBe(true);
    const onPostgresGrants = (await published(onPostgres)).filter((m) => m.type === 'EntitlementGranted');
    expect(onPostgresGrants.every((m) => /^[0-9a-f]{64}$/.test(String(m.payload.ledger_stream_hash)))).toBe(true);
    expect(withoutPosition(messages)).toEqual(withoutPosition(await published(onPostgres)));

    // Caught up: nothing more, however often it runs.
    expect(await drain(projection)).toBe(0);
    expect(await published(onEvents)).toHaveLength(48);
  });

  it('a page that fails is projected again, whole, and nothing of it twice', async () => {
    const pool = await database();
    let failures = 1;
    const flaky: Pick<Outbox, 'enqueue'> = {
      enqueue: async (client: PoolClient, messages: readonly OutboxMessage[]) => {
        await outbox.enqueue(client, messages);
        if (failures-- > 0) throw new Error('connection lost before the commit');
      },
    };
    const { projection, service } = onEventStore(pool, new InMemoryLedger(), flaky);
    await projectHistories(service, 'flaky');
    await expect(projection.projectPage()).rejects.toThrow('connection lost');
    expect(await projection.checkpoint()).toBe(0);
    expect(await published(pool)).toEqual([]);
    expect(await snapshot(pool, 'transaction_status')).toEqual([]);
    expect(await drain(projection)).toBe(48);
    const ids = (await published(pool)).map((m) => m.payload.event_id);
    expect(new Set(ids).size).toBe(48);
    expect(ids).toHaveLength(48);
  });

  it('two projector instances share the checkpoint and never project a page twice', async () => {
    const pool = await database();
    const store = new InMemoryLedger();
    const { service } = onEventStore(pool, store);
    await projectHistories(service, 'pair');
    const [a, b] = [onEventStore(pool, store).projection, onEventStore(pool, store).projection];
    const counts = await Promise.all([drain(a), drain(b)]);
    expect(counts[0] + counts[1]).toBe(48);
    const ids = (await published(pool)).map((m) => m.payload.event_id);
    expect(new Set(ids).size).toBe(48);
    expect(ids).toHaveLength(48);
  });

  it('a settlement whose grant was not appended (a crash between the two appends) is granted when redelivered', async () => {
    const pool = await database();
    const memory = new InMemoryLedger();
    let crash = true;
    const crashing: LedgerStore = {
      append: async (streamId, events, expected) => {
        if (crash && streamId.startsWith('entitlement-')) {
          crash = false;
          throw new Error('process killed');
        }
        return memory.append(streamId, events, expected);
      },
      readStream: (id) => memory.readStream(id),
      readAll: (after, limit) => memory.readAll(after, limit),
      subscribeToAll: (after, handler, options) => memory.subscribeToAll(after, handler, options),
    };
    const { projection, service } = onEventStore(pool, crashing);
    const settled = result('crash_1', {
      verdict: 'cleared',
      before: 'PENDING',
      after: 'SETTLED_CONSENSUS',
      ledger: 'TransactionSettled',
      revision: 0,
      entitlement: 'UNLOCKED',
    });
    const context = { topic: 't', partition: 0, offset: '0', key: null, timestamp: 0, headers: {} };
    await expect(service.handle({ type: 'ConsensusResult', payload: settled }, context)).rejects.toThrow('process killed');
    expect(await memory.readStream(entitlementStream(settled.user_id, 'pro'))).toEqual([]);

    await service.handle({ type: 'ConsensusResult', payload: settled }, context);
    await service.handle({ type: 'ConsensusResult', payload: settled }, context);
    const grants = await memory.readStream(entitlementStream(settled.user_id, 'pro'));
    expect(grants.map((g) => [g.data.reference, g.data.event])).toEqual([['crash_1', 'subscription_started']]);
    expect(await memory.readStream(`transaction-crash_1`)).toHaveLength(1);
    expect(await drain(projection)).toBe(2);
    expect((await published(pool)).map((m) => m.type).sort()).toEqual(['EntitlementGranted', 'SettlementRecorded']);
  });

  it('runs in the background, woken by appends, and stops', async () => {
    const pool = await database();
    const store = new InMemoryLedger();
    const projection = new CheckpointedLedgerProjection(pool, store, outbox, { wake: () => undefined }, logger, { pollIntervalMs: 60_000 });
    const service = new ProjectionService(
      new EventStoreLedgerWriter(
        store,
        (rows) => upsertLatestVerifications(pool, rows),
        () => projection.wake(),
      ),
      logger,
    );
    projection.start();
    try {
      const declined = result('woken_1', {
        verdict: 'declined',
        before: 'PENDING',
        after: 'FAILED_DECLINED',
        ledger: 'PaymentDeclined',
        revision: 0,
        entitlement: 'LOCKED',
      });
      await service.handle({ type: 'ConsensusResult', payload: declined }, { topic: 't', partition: 0, offset: '0', key: null, timestamp: 0, headers: {} });
      // The poll interval is a minute: only the wake-up can project it within the deadline.
      const deadline = Date.now() + 5_000;
      while ((await snapshot(pool, 'transaction_status')).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect((await snapshot(pool, 'transaction_status')).map((r) => [r.reference, r.state])).toEqual([['woken_1', 'FAILED_DECLINED']]);
    } finally {
      await projection.stop();
    }
  });
});
