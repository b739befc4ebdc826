/*
 * Webhook bodies for load tests: a realistic Paystack `charge.success`, a different event every
 * time (reference, id, names, amounts and timestamps vary with `n`).
 */

const FIRST = ['Adaeze', 'Chinedu', 'Funmilayo', 'Ibrahim', 'Kemi', 'Tunde', 'Ngozi', 'Emeka'];
const LAST = ['Okafor', 'Adeyemi', 'Balogun', 'Eze', 'Mohammed', 'Nwosu', 'Olawale', 'Bello'];
const BANKS = ['Guaranty Trust Bank', 'Access Bank', 'Zenith Bank', 'First Bank of Nigeria'];

/** A Paystack `charge.success` event (shape of Paystack's documented payload), ~1.7 KB. */
export function chargeSuccessBody(reference: string, n: number): string {
  const first = FIRST[n % FIRST.length]!;
  const last = LAST[(n >>> 3) % LAST.length]!;
  const customerId = 4_100_000 + (n % 900_000);
  const amount = 50_000 + (n % 997) * 500;
  const paidAt = new Date(Date.now() - 1_500);
  const createdAt = new Date(paidAt.getTime() - 41_000);
  const email = `${first}.${last}${n % 1000}@example.com`.toLowerCase();
  const last4 = String(1000 + (n % 9000));
  const code = (n * 2_654_435_761).toString(36).slice(-10).padStart(10, '0');
  return JSON.stringify({
    event: 'charge.success',
    data: {
      id: 3_900_000_000 + n,
      domain: 'live',
      status: 'success',
      reference,
      receipt_number: null,
      amount,
      message: null,
      gateway_response: 'Approved by Financial Institution',
      paid_at: paidAt.toISOString(),
      created_at: createdAt.toISOString(),
      channel: 'card',
      currency: 'NGN',
      ip_address: `102.89.${n % 250}.${(n >>> 8) % 250}`,
      metadata: {
        user_id: `user_${customerId}`,
        plan: 'pro-monthly',
        cart_id: `cart_${code}`,
        referrer: 'https://app.example.com/billing/checkout?plan=pro-monthly',
        custom_fields: [
          { display_name: 'Invoice ID', variable_name: 'invoice_id', value: `INV-2026-${String(n).padStart(8, '0')}` },
          { display_name: 'Seats', variable_name: 'seats', value: String(1 + (n % 25)) },
        ],
      },
      log: {
        start_time: Math.floor(createdAt.getTime() / 1000),
        time_spent: 41,
        attempts: 1,
        errors: 0,
        success: true,
        mobile: false,
        input: [],
        history: [
          { type: 'action', message: 'Attempted to pay with card', time: 38 },
          { type: 'success', message: 'Successfully paid with card', time: 41 },
        ],
      },
      fees: Math.min(200_000, Math.round(amount * 0.015) + 10_000),
      fees_split: null,
      authorization: {
        authorization_code: `AUTH_${code}`,
        bin: '408408',
        last4,
        exp_month: String(1 + (n % 12)).padStart(2, '0'),
        exp_year: String(2027 + (n % 5)),
        channel: 'card',
        card_type: 'visa DEBIT',
        bank: BANKS[n % BANKS.length],
        country_code: 'NG',
        brand: 'visa',
        reusable: true,
        signature: `SIG_${code}${last4}`,
        account_name: null,
        receiver_bank_account_number: null,
        receiver_bank: null,
      },
      customer: {
        id: customerId,
        first_name: first,
        last_name: last,
        email,
        customer_code: `CUS_${code}`,
        phone: `+23480${String(10_000_000 + (n % 89_999_999))}`,
        metadata: null,
        risk_action: 'default',
        international_format_phone: null,
      },
      plan: {},
      subaccount: {},
      split: {},
      order_id: null,
      paidAt: paidAt.toISOString(),
      createdAt: createdAt.toISOString(),
      requested_amount: amount,
      pos_transaction_data: null,
      source: { type: 'web', source: 'checkout', entry_point: 'request_inline', identifier: null },
    },
  });
}
