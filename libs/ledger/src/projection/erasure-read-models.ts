import type { Pool, PoolClient } from '@settle/platform';
import { ERASED } from '@settle/domain';
import type { ErasureRow } from './ledger-projection.js';

/**
 * Applies erasures to the read models (docs/privacy.md, "Erasure"), after the other rows of the
 * same run: the customer check of each erased payment reads `erased`, expected and observed, in
 * `read_model.transaction_status`; each erased unmatched payment's sealed customer values are
 * cleared, and its masked ones read `erased`, in `read_model.unmatched_payments`. A rebuild replays the `SubjectErased` facts after the events
 * they erase, so it ends in the same place.
 */
export async function applyErasures(client: PoolClient | Pool, rows: readonly ErasureRow[]): Promise<void> {
  const transactions = [...new Set(rows.flatMap((r) => r.transactionReferences))];
  const unmatched = [...new Set(rows.flatMap((r) => r.unmatchedReferences))];
  if (transactions.length > 0) {
    await client.query(
      `UPDATE read_model.transaction_status
          SET checks = (SELECT jsonb_agg(CASE WHEN c->>'check' = 'customer' THEN c || jsonb_build_object('expected', $2::text, 'observed', $2::text) ELSE c END
                                         ORDER BY ord)
                          FROM jsonb_array_elements(checks) WITH ORDINALITY AS x(c, ord))
        WHERE reference = ANY($1::text[]) AND jsonb_typeof(checks) = 'array' AND jsonb_array_length(checks) > 0`,
      [transactions, ERASED],
    );
  }
  if (unmatched.length > 0) {
    await client.query(
      `UPDATE read_model.unmatched_payments
          SET customer_email = NULL, customer_phone = NULL,
              customer_email_masked = CASE WHEN customer_email_masked IS NULL THEN NULL ELSE $2 END,
              customer_phone_masked = CASE WHEN customer_phone_masked IS NULL THEN NULL ELSE $2 END
        WHERE reference = ANY($1::text[])`,
      [unmatched, ERASED],
    );
  }
}
