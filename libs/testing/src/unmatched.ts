import { createHash } from 'node:crypto';
import { maskEmail } from '@settle/domain';
import type { UnmatchedPaymentRecordedData, UnmatchedPaymentRow } from '@settle/ledger';

/**
 * Text shaped as a sealed value of `field` (`sealed:v1:<key id>:<base64url>`, docs/privacy.md,
 * "Crypto-shredding"), stable for its input, that opens under no key: a read model stores it as
 * it arrives and must never show it.
 */
export function fakeSealedValue(field: string, value: string): string {
  const digest = createHash('sha256').update(`${field}\u0000${value}`).digest();
  const hex = digest.subarray(0, 16).toString('hex');
  const keyId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  return `sealed:v1:${keyId}:${digest.toString('base64url')}`;
}

/**
 * A read-model row of a recorded unmatched payment (docs/unmatched-payments.md), for seeding
 * `read_model.unmatched_payments` with `upsertUnmatchedPayments` in tests: a Paystack payment of
 * NGN 2 500.00 (250 000 minor units) by `<reference>@example.com`, its terms verified, confirmed
 * at 2026-11-28T12:00:00.000Z, unless `data` says otherwise. The email as the verifier publishes
 * it (docs/privacy.md): sealed ({@link fakeSealedValue}), and masked beside. `data` with a
 * plaintext `customer_email` and no masked form stands for an event written before sealing.
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
      customer_email: fakeSealedValue('customer_email', `${reference}@example.com`),
      customer_phone: null,
      customer_email_masked: maskEmail(`${reference}@example.com`),
      customer_phone_masked: null,
      terms_verified: true,
      provider_status: 'success',
      provider_transaction_id: null,
      verified_at: '2026-11-28T12:00:00.000Z',
      ...data,
    },
  };
}
