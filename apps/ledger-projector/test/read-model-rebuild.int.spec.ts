/**
 * The transaction-status and entitlements read models are projections of the ledger alone: dropped and rebuilt
 * from the ledger, it equals the live one the projector kept while consuming consensus
 * results (with redeliveries and answers that changed nothing among them). Real PostgreSQL,
 * the real schema registry (the settlement outbox checks its schema), the projector's class.
 */
import { randomUUID } from 'node:crypto';
import type { EntitlementStatus, TransactionStatus } from '@settle/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_DDL, PostgresLedger, READ_MODEL_DDL, rebuildReadModels } from '@settle/ledger';
import { AvroCodec, Outbox, outboxDdl, topicNames, type ConsensusResultV1 } from '@settle/messaging';
import { createLogger, createPool, migrate, type Pool } from '@settle/platform';
import { createTestDatabase, infra, uniqueTopicPrefix } from '../../../scripts/harness/infra.js';
import { ProjectionService } from '../src/projection.service.js';

let pool: Pool;
let drop: () => Promise<void>;
let service: ProjectionService;

beforeAll(async () => {
  const database = await createTestDatabase('settle_rebuild');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrate(pool, 'ledger', [...LEDGER_DDL, ...outboxDdl('ledger')]);
  await migrate(pool, 'read_model', READ_MODEL_DDL);
  const topics = topicNames(uniqueTopicPrefix('rebuild'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['SettlementRecorded', 'EntitlementGranted']);
  service = new ProjectionService(
    pool,
    new PostgresLedger(pool),
    new Outbox('ledger', topics, codec),
    { wake: () => undefined },
    createLogger('rebuild', 'fatal'),
  );
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

let clock = 1_800_000_000_000;

/** A consensus result as the verifier publishes it. */
function result(
  reference: string,
  step: {
    verdict: ConsensusResultV1['verdict'];
    before: TransactionStatus;
    after: TransactionStatus;
    ledger: string | null;
    revision: number;
    entitlement: EntitlementStatus;
  },
): ConsensusResultV1 {
  clock += 1_000;
  const settled = step.after === 'SETTLED_CONSENSUS';
  return {
    event_id: randomUUID(),
    occurred_at: clock,
    correlation_id: `corr-${reference}`,
    causation_id: randomUUID(),
    reference,
    provider: 'paystack',
    trigger: 'sweeper_orphaned',
    verdict: step.verdict,
    provider_status: step.verdict === 'clearing' ? 'ongoing' : null,
    detail: null,
    outcome: step.ledger ? (step.after as ConsensusResultV1['outcome']) : 'UNCHANGED',
    ledger_event_type: step.ledger,
    ledger_expected_revision: step.revision,
    state_before: step.before,
    state_after: step.after,
    entitlement_status: step.entitlement,
    checks: settled ? [{ check: 'amount', passed: true, code: null, expected: '500000', observed: '500000' }] : [],
    amount_minor: 500_000,
    currency: 'NGN',
    user_id: `user-${reference}`,
    entitlement: 'pro',
    observed_amount_minor: settled ? 500_000 : null,
    charged_amount_minor: null,
    observed_currency: settled ? 'NGN' : null,
    provider_transaction_id: null,
    access_period: 'P1M',
  };
}

const HISTORIES = {
  settledAfterReview: [
    { verdict: 'clearing', before: 'PENDING', after: 'RECOVERING', ledger: 'PaymentHeldInReview', revision: 0, entitlement: 'HELD_IN_REVIEW' },
    { verdict: 'clearing', before: 'RECOVERING', after: 'RECOVERING', ledger: null, revision: 1, entitlement: 'HELD_IN_REVIEW' },
    { verdict: 'cleared', before: 'RECOVERING', after: 'SETTLED_CONSENSUS', ledger: 'TransactionSettled', revision: 1, entitlement: 'UNLOCKED' },
  ],
  declined: [{ verdict: 'declined', before: 'PENDING', after: 'FAILED_DECLINED', ledger: 'PaymentDeclined', revision: 0, entitlement: 'LOCKED' }],
  manualReview: [
    { verdict: 'clearing', before: 'PENDING', after: 'RECOVERING', ledger: 'PaymentHeldInReview', revision: 0, entitlement: 'HELD_IN_REVIEW' },
    { verdict: 'unreachable', before: 'RECOVERING', after: 'MANUAL_REVIEW', ledger: 'ManualReviewRequired', revision: 1, entitlement: 'HELD_IN_REVIEW' },
  ],
  neverSeen: [{ verdict: 'not_found', before: 'PENDING', after: 'PENDING', ledger: null, revision: 0, entitlement: 'LOCKED' }],
} as const;

const snapshot = async (table: string) =>
  (await pool.query(`SELECT * FROM read_model.${table} ORDER BY ${table === 'entitlements' ? 'user_id, entitlement' : 'reference'}`)).rows;

describe('read model rebuilt from the ledger alone', () => {
  it('equals the live read model, row for row', async () => {
    const context = { topic: 't', partition: 0, offset: '0', key: null, timestamp: 0, headers: {} };
    let n = 0;
    for (const [name, steps] of Object.entries(HISTORIES)) {
      for (let i = 0; i < 8; i++) {
        const reference = `ref_${name}_${i}`;
        for (const step of steps) {
          const payload = result(reference, step);
          await service.handle({ type: 'ConsensusResult', payload }, context);
          // Every other result is redelivered, as Kafka may after a crash.
          if (n++ % 2 === 0) await service.handle({ type: 'ConsensusResult', payload }, context);
        }
      }
    }
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
