import type { UnmatchedPaymentRecordedData, UnmatchedPaymentRow } from '@settle/ledger';

/**
 * A read-model row of a recorded unmatched payment (docs/unmatched-payments.md), for seeding
 * `read_model.unmatched_payments` with `upsertUnmatchedPayments` in tests: a Paystack payment of
 * NGN 2 500.00 (250 000 minor units) by `<reference>@example.com`, its terms verified, confirmed
 * at 2026-11-28T12:00:00.000Z, unless `data` says otherwise.
 */
export function recordedUnmatchedPayment(reference: string, data: Partial<UnmatchedPaymentRecordedData> = {}): UnmatchedPaymentRow {
  return {
    kind: 'recorded',
    reference,
    ledgerRevision: 0,
    data: {
      reference,
      provider: 'paystack',
      amount_minor: 250_000,
      currency: 'NGN',
      customer_email: `${reference}@example.com`,
      customer_phone: null,
      terms_verified: true,
      provider_status: 'success',
      provider_transaction_id: null,
      verified_at: '2026-11-28T12:00:00.000Z',
      ...data,
    },
  };
}
