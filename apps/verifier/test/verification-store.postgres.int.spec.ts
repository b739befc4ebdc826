/** The verifier store's contract against PostgreSQL (and the schema registry, which the outbox checks payloads with). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConsensus } from '@settle/domain';
import { AvroCodec, Outbox, topicNames } from '@settle/messaging';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { VERIFIER_MIGRATIONS } from '../src/schema.js';
import { TransactionRepository } from '../src/transaction.repository.js';
import { UnmatchedCandidateRepository } from '../src/unmatched-candidate.repository.js';
import type { UnmatchedCandidate } from '../src/verification-store.port.js';
import { PostgresVerificationStore } from '../src/verification-store.postgres.js';
import { verificationStoreContract } from './verification-store.contract.js';

let pool: Pool;
let drop: () => Promise<void>;
let outbox: Outbox;

beforeAll(async () => {
  const database = await createTestDatabase('settle_verifier_store');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchema(pool, VERIFIER_MIGRATIONS);
  const topics = topicNames(uniqueTopicPrefix('verifier-store'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['ConsensusResult']);
  outbox = new Outbox('verifier', topics, codec);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

verificationStoreContract('PostgreSQL', () => ({
  store: new PostgresVerificationStore(pool, new TransactionRepository(pool), outbox),
  outboxed: async (reference) => {
    const { rows } = await pool.query<{ event_type: string; outcome: string }>(
      `SELECT event_type, payload->>'outcome' AS outcome FROM verifier.outbox WHERE payload->>'reference' = $1 ORDER BY id`,
      [reference],
    );
    return rows.map((r) => `${r.event_type}:${r.outcome}`);
  },
}));

describe('a registration whose customer was erased (docs/privacy.md, "Erasure")', () => {
  it('loads with the mark that makes the customer check record erased once it was decided; erased before any decision, its customer check fails', async () => {
    await pool.query(
      `INSERT INTO verifier.transactions (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement, correlation_id, status, entitlement_status, outcomes)
       VALUES ('ref_erased', 'paystack', 100, 'NGN', 'user-e', NULL, NULL, 'pro', 'c', 'SETTLED_CONSENSUS', 'UNLOCKED', 1),
              ('ref_erased_early', 'paystack', 100, 'NGN', 'user-f', NULL, NULL, 'pro', 'c', 'PENDING', 'LOCKED', 0),
              ('ref_erased_in_review', 'paystack', 100, 'NGN', 'user-g', NULL, NULL, 'pro', 'c', 'RECOVERING', 'HELD_IN_REVIEW', 1),
              ('ref_kept', 'paystack', 100, 'NGN', 'user-k', 'k@example.com', NULL, 'pro', 'c', 'SETTLED_CONSENSUS', 'UNLOCKED', 1)`,
    );
    await pool.query(
      `UPDATE verifier.transactions SET customer_erased_at = now() WHERE reference IN ('ref_erased', 'ref_erased_early', 'ref_erased_in_review')`,
    );
    const loaded = await new TransactionRepository(pool).loadMany(['ref_erased', 'ref_erased_early', 'ref_erased_in_review', 'ref_kept']);
    // Held in review, an outcome was recorded but no consensus reached: its customer was never compared either.
    expect(loaded.get('ref_erased_in_review')!.state.expectation.customerErased).toBeUndefined();
    expect(loaded.get('ref_erased')!.state.expectation).toMatchObject({ customer: {}, customerErased: true });
    expect(loaded.get('ref_kept')!.state.expectation.customerErased).toBeUndefined();
    // Erased before it was ever verified: its customer was never checked, so it is not passed on
    // that account; it has no identifiers left, and its customer check fails as for a
    // registration with none (the conservative answer for money).
    const early = loaded.get('ref_erased_early')!.state.expectation;
    expect(early.customerErased).toBeUndefined();
    expect(early.customer).toEqual({ email: undefined, phone: undefined });
    const check = checkConsensus(early, {
      reference: 'ref_erased_early',
      amountMinor: 100,
      currency: 'NGN',
      customer: { email: 'payer@example.com' },
      providerStatus: 'success',
    }).find((c) => c.check === 'customer');
    expect(check).toMatchObject({ passed: false });
  });
});

describe('an unmatched payment whose customer was erased while a batch handled it (docs/privacy.md, "Erasure")', () => {
  const recorded = (reference: string): UnmatchedCandidate => ({
    reference,
    provider: 'paystack',
    correlationId: `corr-${reference}`,
    status: 'recorded',
    firstSeenAt: 1_000,
    matchedAt: null,
    payment: {
      provider: 'paystack',
      reference,
      amountMinor: 500,
      currency: 'NGN',
      customer: { email: 'payer@example.com', phone: '+2348012345678' },
      termsVerified: true,
      providerStatus: 'success',
      providerTransactionId: null,
      verifiedAt: 2_000,
    },
  });
  const save = async (candidates: UnmatchedCandidate[]) => {
    const client = await pool.connect();
    try {
      await new UnmatchedCandidateRepository(pool).saveMany(client, candidates);
    } finally {
      client.release();
    }
  };
  const stored = async (reference: string) =>
    (
      await pool.query<{ status: string; customer_email: string | null; customer_phone: string | null }>(
        'SELECT status, customer_email, customer_phone FROM verifier.unmatched_payments WHERE reference = $1',
        [reference],
      )
    ).rows[0];

  it('a later change (matched, closed) keeps the cleared columns; only the answer that records the candidate writes them', async () => {
    // The candidate, then the provider's answer that records it with the payer's identifiers.
    await save([
      { ...recorded('ref_unmatched_matched'), status: 'candidate', payment: null },
      { ...recorded('ref_unmatched_closed'), status: 'candidate', payment: null },
    ]);
    await save([recorded('ref_unmatched_matched'), recorded('ref_unmatched_closed')]);
    expect(await stored('ref_unmatched_matched')).toEqual({ status: 'recorded', customer_email: 'payer@example.com', customer_phone: '+2348012345678' });

    // A batch read them recorded; an erasure clears them; the batch then writes what it read.
    await pool.query(
      `UPDATE verifier.unmatched_payments SET customer_email = NULL, customer_phone = NULL WHERE reference IN ('ref_unmatched_matched', 'ref_unmatched_closed')`,
    );
    await save([
      { ...recorded('ref_unmatched_matched'), status: 'matched', matchedAt: 3_000 },
      { ...recorded('ref_unmatched_closed'), status: 'closed' },
    ]);
    expect(await stored('ref_unmatched_matched')).toEqual({ status: 'matched', customer_email: null, customer_phone: null });
    expect(await stored('ref_unmatched_closed')).toEqual({ status: 'closed', customer_email: null, customer_phone: null });
  });
});
