/**
 * The transaction-status and entitlements read models are projections of the ledger alone: dropped and rebuilt
 * from the ledger, it equals the live one the projector kept while consuming consensus
 * results (with redeliveries and answers that changed nothing among them). Real PostgreSQL,
 * the real schema registry (the settlement outbox checks its schema), the projector's class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_MIGRATIONS, PostgresLedger, PostgresLedgerWriter, READ_MODEL_MIGRATIONS, rebuildReadModels } from '@settle/ledger';
import { AvroCodec, Outbox, topicNames, type BatchItem } from '@settle/messaging';
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
    expect(rebuilt).toEqual({ events: 48, rows: 24, entitlements: 8, unmatched: 0, reconciliation: 0 });
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

  it('projects unmatched payments (open, then matched) in the append, and rebuilds them from the ledger alone (docs/unmatched-payments.md)', async () => {
    const observed = (reference: string, observation: 'recorded' | 'matched' | 'closed', n: number): BatchItem => ({
      event: {
        type: 'UnmatchedPaymentObserved',
        payload: {
          event_id: `00000000-0000-4000-8000-00000000000${n}`,
          occurred_at: Date.UTC(2026, 10, 28, 12, n),
          correlation_id: `corr-${reference}`,
          causation_id: `cause-${n}`,
          reference,
          provider: 'paystack',
          observation,
          verdict: observation === 'recorded' ? 'cleared' : null,
          provider_status: 'success',
          amount_minor: 250_000,
          currency: 'NGN',
          customer_email: `sealed:v1:0b8c1f4e-5a2d-4c1b-9e7f-3d6a2b1c0e9f:cGF5ZXJAZXhhbXBsZS5jb20tc2Vhb${n}`,
          customer_phone: null,
          customer_email_masked: `${reference[0]}•••@example.com`,
          customer_phone_masked: null,
          terms_verified: true,
          provider_transaction_id: null,
          close_reason: observation === 'closed' ? 'test_payment' : null,
          close_note: null,
          closed_by: observation === 'closed' ? 'ops@example.com' : null,
        },
      },
      context: { topic: 't', partition: 0, offset: String(n), key: reference, timestamp: 0, headers: {} },
    });
    // Recorded and matched in one batch, the match redelivered in the next, another left open.
    expect(
      await service.handleBatch([observed('ref_open', 'recorded', 1), observed('ref_matched', 'recorded', 2), observed('ref_matched', 'matched', 3)]),
    ).toEqual([]);
    expect(await service.handleBatch([observed('ref_matched', 'matched', 3)])).toEqual([]);
    expect(await service.handleBatch([observed('ref_closed', 'recorded', 4), observed('ref_closed', 'closed', 5)])).toEqual([]);
    const live = await snapshot('unmatched_payments');
    expect(live.map((r) => [r.reference, r.status, Number(r.amount_minor), r.matched_at?.toISOString() ?? null, Number(r.ledger_revision)])).toEqual([
      ['ref_closed', 'closed', 250_000, null, 1],
      ['ref_matched', 'matched', 250_000, '2026-11-28T12:03:00.000Z', 1],
      ['ref_open', 'open', 250_000, null, 0],
    ]);
    expect(live[0]).toMatchObject({ close_reason: 'test_payment', closed_by: 'ops@example.com' });
    // The payer's email as it arrived (sealed), its masked form beside (docs/privacy.md).
    expect(live[2]).toMatchObject({
      customer_email: expect.stringMatching(/^sealed:v1:/),
      customer_email_masked: 'r•••@example.com',
      customer_phone_masked: null,
    });
    const rebuilt = await rebuildReadModels(pool, new PostgresLedger(pool));
    expect(rebuilt.unmatched).toBe(3);
    expect(await snapshot('unmatched_payments')).toEqual(live);
  });
});
