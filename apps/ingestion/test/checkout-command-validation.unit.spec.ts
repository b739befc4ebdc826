/**
 * One validation behind both ways in (docs/api.md, "Two ways in"): a registration's terms get
 * the same verdict (the same parsed terms, or the same problem: status, code, detail and field
 * errors) whether they came as the JSON body of `POST /v1/checkouts` or as a `RegisterCheckout`
 * command on the topic, Avro-encoded with its registered schema and decoded again.
 */
import avro, { type Type } from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_AMOUNT_MINOR, PROVIDERS } from '@settle/domain';
import { loadAvroSchema, type RegisterCheckoutV1 } from '@settle/messaging';
import { ProblemError } from '@settle/platform';
import { validateRegistration } from '../src/checkouts/checkout-intake.js';
import { registrationBodyOf } from '../src/commands/command-bodies.js';

const registerCheckout: Type = avro.Type.forSchema(JSON.parse(loadAvroSchema('RegisterCheckout')) as avro.Schema);

/**
 * A registration as a JSON body: any field may be wrong, none is of a type Avro cannot carry (a
 * lone surrogate neither: it has no UTF-8 form, so a producer's encoder writes U+FFFD for it and
 * the terms are no longer the same).
 */
interface Body {
  provider: string;
  reference: string;
  amount: number;
  currency: string;
  user_id: string;
  customer: { email?: string; phone?: string };
  entitlement: string;
  access_period: string;
}

const body: fc.Arbitrary<Body> = fc.record({
  provider: fc.oneof(fc.constantFrom(...PROVIDERS), fc.constantFrom('Paystack', 'mollie', '')),
  reference: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/), fc.constantFrom('ref with space', '', 'r'.repeat(101), 'ref/1')),
  amount: fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), fc.constantFrom(0, -1, MAX_AMOUNT_MINOR, MAX_AMOUNT_MINOR + 1)),
  currency: fc.constantFrom('NGN', 'USD', 'KES', 'ngn', 'XXY', 'EURO', ''),
  user_id: fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.constantFrom('', '   ', 'u'.repeat(201), 'user\u0000-1')),
  customer: fc.record(
    {
      email: fc.constantFrom('ada@example.com', 'not-an-email', '', 'ada\u0000@example.com'),
      phone: fc.constantFrom('+254712345678', '+2348012345678', '0712345678', '+1', '+44 20 7946 0958'),
    },
    { requiredKeys: [] },
  ),
  entitlement: fc.constantFrom('pro-monthly', '', ' ', 'team-annual'),
  access_period: fc.constantFrom('P1M', 'P30D', 'P1Y', 'P11Y', 'PT0S', '1 month', ''),
});

/** What a transport's validation decided: the terms, or the problem with everything the HTTP API answers. */
function verdict(input: unknown): unknown {
  try {
    return { ok: validateRegistration(input) };
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return { status: error.status, code: error.code, title: error.title, detail: error.detail, errors: error.errors };
  }
}

/** The JSON body as HTTP receives it (serialised and parsed). */
const overHttp = (b: Body): unknown => JSON.parse(JSON.stringify(b));

/** The same terms as a producer sends them on the topic: encoded with the registered schema, decoded by Settle. */
function overKafka(b: Body): unknown {
  const command: RegisterCheckoutV1 = {
    event_id: 'c0ffee00-0000-4000-8000-000000000000',
    occurred_at: 1_795_000_000_000,
    correlation_id: 'order-1',
    provider: b.provider,
    reference: b.reference,
    amount: b.amount,
    currency: b.currency,
    user_id: b.user_id,
    customer: { email: b.customer.email ?? null, phone: b.customer.phone ?? null },
    entitlement: b.entitlement,
    access_period: b.access_period,
  };
  const decoded = registerCheckout.fromBuffer(registerCheckout.toBuffer(command)) as RegisterCheckoutV1;
  return registrationBodyOf(decoded);
}

describe('a registration’s verdict is the same over HTTP and over the commands topic', () => {
  it('for generated terms, valid and not', () => {
    fc.assert(
      fc.property(body, (b) => {
        expect(verdict(overKafka(b))).toEqual(verdict(overHttp(b)));
      }),
      { numRuns: 500 },
    );
  });

  it('both accept valid terms and refuse bad ones with the field named (the property is not vacuous)', () => {
    const good: Body = {
      provider: 'paystack',
      reference: 'ref_ok_1',
      amount: 5_000,
      currency: 'NGN',
      user_id: 'user-1',
      customer: { phone: '+2348012345678' },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    };
    expect(verdict(overKafka(good))).toMatchObject({ ok: { reference: 'ref_ok_1', customer: { phone: '+2348012345678' } } });
    const bad = verdict(overKafka({ ...good, amount: 0, customer: {} }));
    expect(bad).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    expect((bad as { errors: Array<{ path: string }> }).errors.map((e) => e.path).sort()).toEqual(['amount', 'customer']);
  });
});
