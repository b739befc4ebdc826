import { literalOf, PROVIDERS } from '@settle/domain';
import type { Pool, PoolClient } from '@settle/platform';
import type { UnmatchedCandidate } from './verification-store.port.js';

interface Row {
  reference: string;
  provider: string;
  correlation_id: string;
  status: string;
  first_seen_at: string;
  amount_minor: string | null;
  currency: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  terms_verified: boolean;
  provider_status: string | null;
  provider_transaction_id: string | null;
  verified_at: string | null;
  matched_at: string | null;
}

const STATUSES = ['candidate', 'recorded', 'declined', 'not_found', 'matched', 'closed'] as const;

/**
 * `verifier.unmatched_payments` (migration verifier/0003): the payments Settle was never told
 * about, one row per reference (docs/unmatched-payments.md). Written whole, in the commit of the
 * batch that decided it.
 */
export class UnmatchedCandidateRepository {
  constructor(private readonly pool: Pool) {}

  /** Reference to candidate, for the references that have one, in one query. */
  async loadMany(references: readonly string[]): Promise<Map<string, UnmatchedCandidate>> {
    if (references.length === 0) return new Map();
    const { rows } = await this.pool.query<Row>('SELECT * FROM verifier.unmatched_payments WHERE reference = ANY($1::text[])', [references]);
    return new Map(rows.map((row) => [row.reference, candidateOf(row)]));
  }

  /**
   * Inserts or replaces candidates in one statement, in the caller's transaction. The customer's
   * email and phone are written only with the provider's answer that records them, while the
   * stored row is still a `candidate`: a later change (matched, closed, ...) keeps the stored
   * columns, which an erasure may have cleared since the batch read them (docs/privacy.md,
   * "Erasure"), so a batch racing an erasure never writes the plaintext back.
   */
  async saveMany(client: PoolClient, candidates: readonly UnmatchedCandidate[]): Promise<void> {
    if (candidates.length === 0) return;
    const col = <T>(f: (c: UnmatchedCandidate) => T) => candidates.map(f);
    await client.query(
      `INSERT INTO verifier.unmatched_payments AS stored
         (reference, provider, correlation_id, status, first_seen_at, amount_minor, currency, customer_email,
          customer_phone, terms_verified, provider_status, provider_transaction_id, verified_at, matched_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[],
                            $9::text[], $10::bool[], $11::text[], $12::text[], $13::bigint[], $14::bigint[])
       ON CONFLICT (reference) DO UPDATE SET
         status = EXCLUDED.status, amount_minor = EXCLUDED.amount_minor, currency = EXCLUDED.currency,
         customer_email = CASE WHEN stored.status = 'candidate' THEN EXCLUDED.customer_email ELSE stored.customer_email END,
         customer_phone = CASE WHEN stored.status = 'candidate' THEN EXCLUDED.customer_phone ELSE stored.customer_phone END,
         terms_verified = EXCLUDED.terms_verified, provider_status = EXCLUDED.provider_status,
         provider_transaction_id = EXCLUDED.provider_transaction_id, verified_at = EXCLUDED.verified_at,
         matched_at = EXCLUDED.matched_at, updated_at = now()`,
      [
        col((c) => c.reference),
        col((c) => c.provider),
        col((c) => c.correlationId),
        col((c) => c.status),
        col((c) => c.firstSeenAt),
        col((c) => c.payment?.amountMinor ?? null),
        col((c) => c.payment?.currency ?? null),
        col((c) => c.payment?.customer.email ?? null),
        col((c) => c.payment?.customer.phone ?? null),
        col((c) => c.payment?.termsVerified ?? false),
        col((c) => c.payment?.providerStatus ?? null),
        col((c) => c.payment?.providerTransactionId ?? null),
        col((c) => c.payment?.verifiedAt ?? null),
        col((c) => c.matchedAt),
      ],
    );
  }
}

function candidateOf(row: Row): UnmatchedCandidate {
  const provider = literalOf(PROVIDERS, row.provider, 'provider');
  const num = (v: string | null) => (v === null ? null : Number(v));
  return {
    reference: row.reference,
    provider,
    correlationId: row.correlation_id,
    status: literalOf(STATUSES, row.status, 'unmatched payment status'),
    firstSeenAt: Number(row.first_seen_at),
    matchedAt: num(row.matched_at),
    payment:
      row.verified_at === null || row.currency === null
        ? null
        : {
            provider,
            reference: row.reference,
            amountMinor: num(row.amount_minor),
            currency: row.currency,
            customer: { email: row.customer_email, phone: row.customer_phone },
            termsVerified: row.terms_verified,
            providerStatus: row.provider_status ?? '',
            providerTransactionId: row.provider_transaction_id,
            verifiedAt: Number(row.verified_at),
          },
  };
}
