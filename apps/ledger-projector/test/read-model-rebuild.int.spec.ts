/**
 * The transaction-status and entitlements read models are projections of the ledger alone: dropped and rebuilt
 * from the ledger, it equals the live one the projector kept while consuming consensus
 * results (with redeliveries and answers that changed nothing among them). Real PostgreSQL,
 * the real schema registry (the settlement outbox checks its schema), the projector's class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_MIGRATIONS, PostgresLedger, PostgresLedgerWriter, READ_MODEL_MIGRATIONS, rebuildReadModels } from '@settle/ledger';
import { AvroCodec, Outbox, topicNames } from '@settle/messaging';
import { createLogger, createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { ProjectionService } from '../src/projection.service.js';
import { projectHistories } from './fixtures.js';

let pool: Pool;
let drop: () => Promise<void>;
let service: ProjectionService;

beforeAll(async () => {
  const database = await createTestDatabase('settle_rebuild');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchemas(pool, [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  const topics = topicNames(uniqueTopicPrefix('rebuild'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['SettlementRecorded', 'EntitlementGranted']);
  service = new ProjectionService(
    new PostgresLedgerWriter(pool, new PostgresLedger(pool), new Outbox('ledger', topics, codec), { wake: () => undefined }),
    createLogger('rebuild', 'fatal'),
  );
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

const snapshot = async (table: string) =>
  (await pool.query(`SELECT * FROM read_model.${table} ORDER BY ${table === 'entitlements' ? 'user_id, entitlement' : 'reference'}`)).rows;

describe('read model rebuilt from the ledger alone', () => {
  it('equals the live read model, row for row', async () => {
    await projectHistories(service);
    // Exactly once: redelivered results appended nothing and published nothing twice. The 8
    // settlements each granted their user's entitlement once (8 more ledger events).
    const count = async (sql: string) => (await pool.query<{ n: number }>(sql)).rows[0]!.n;
    const ledgerCount = await count('SELECT count(*)::int AS n FROM ledger.events');
    const settlements = await count("SELECT count(*)::int AS n FROM ledger.outbox WHERE event_type = 'SettlementRecorded'");
    const grants = await count("SELECT count(*)::int AS n FROM ledger.outbox WHERE event_type = 'EntitlementGranted'");
    expect([ledgerCount, settlements, grants]).toEqual([48, 40, 8]);
    const live = await snapshot('transaction_status');
    const answers = await snapshot('latest_verification');
    const entitlements = await snapshot('entitlements');
    expect(live).toHaveLength(24); // the never-seen ones have no ledger entry, so no row
    expect(live.filter((r) => r.state === 'MANUAL_REVIEW')).toHaveLength(8);
    expect(entitlements).toHaveLength(8);

    const rebuilt = await rebuildReadModels(pool, new PostgresLedger(pool));
    expect(rebuilt).toEqual({ events: 48, rows: 24, entitlements: 8 });
    expect(await snapshot('transaction_status')).toEqual(live);
    expect(await snapshot('latest_verification')).toEqual(answers);
    expect(await snapshot('entitlements')).toEqual(entitlements);
  });

  it('rebuilds emptied read models too (dropped rows come back)', async () => {
    const live = await snapshot('transaction_status');
    const entitlements = await snapshot('entitlements');
    await pool.query('DELETE FROM read_model.transaction_status');
    await pool.query('DELETE FROM read_model.entitlements');
    await rebuildReadModels(pool, new PostgresLedger(pool));
    expect(await snapshot('transaction_status')).toEqual(live);
    expect(await snapshot('entitlements')).toEqual(entitlements);
  });
});
