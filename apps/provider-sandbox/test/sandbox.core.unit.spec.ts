import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { basicCredentials, bearerMatches, bearerToken, secretEquals } from '../src/credentials.js';
import { currencyExponent, toMajorUnits } from '../src/money.js';
import { behaviourSchema, observe, otherPhone, OTHER_CUSTOMER_EMAIL, TransactionBook, type Behaviour } from '../src/sandbox.core.js';

const behaviour = (b: Partial<Behaviour>): Behaviour => behaviourSchema.parse(b);
const book = () => new TransactionBook(1);
const create = (b: TransactionBook, knobs: Partial<Behaviour> = {}, extra: { currency?: string; phone?: string } = {}) =>
  b.create({
    reference: `ref_${randomBytes(4).toString('hex')}`,
    amount: 10_001,
    currency: extra.currency ?? 'NGN',
    email: 'ada@example.com',
    phone: extra.phone,
    behaviour: behaviour(knobs),
  });

describe('the generic behaviour model', () => {
  it('serves the configured failures first, then the state', () => {
    const b = book();
    const tx = create(b, { failures: { mode: '504', times: 2 } });
    expect(b.check(tx)).toEqual({ kind: 'failure', mode: '504' });
    expect(b.check(tx)).toEqual({ kind: 'failure', mode: '504' });
    expect(b.check(tx)).toEqual({ kind: 'state', state: 'unpaid', clearedNow: false });
    expect(tx).toMatchObject({ verifyCalls: 3, failuresServed: 2 });
  });

  it('reports the state right after payment, and settles a paid transaction only once', () => {
    const b = book();
    expect(b.pay(create(b))).toBe('succeeded');
    expect(b.pay(create(b, { outcome: 'declined' }))).toBe('declined');
    const clearing = create(b, { outcome: 'clearing_then_success' });
    expect(b.pay(clearing)).toBe('clearing');
    expect(b.pay(clearing)).toBeNull();
  });

  it('holds a clearing payment for clearing_checks calls and clears it on exactly one call', () => {
    const b = book();
    const tx = create(b, { outcome: 'clearing_then_success', clearing_checks: 2 });
    b.pay(tx);
    const states = Array.from({ length: 4 }, () => b.check(tx));
    expect(states).toEqual([
      { kind: 'state', state: 'clearing', clearedNow: false },
      { kind: 'state', state: 'clearing', clearedNow: false },
      { kind: 'state', state: 'succeeded', clearedNow: true },
      { kind: 'state', state: 'succeeded', clearedNow: false },
    ]);
    expect(tx.webhookDue).toBe(true);
  });

  it('answers declined on every call after a declined payment', () => {
    const b = book();
    const tx = create(b, { outcome: 'declined' });
    b.pay(tx);
    expect(b.check(tx)).toEqual({ kind: 'state', state: 'declined', clearedNow: false });
    expect(b.check(tx)).toEqual({ kind: 'state', state: 'declined', clearedNow: false });
  });

  it('is idempotent on the reference and finds transactions by id', () => {
    const b = book();
    const tx = create(b);
    expect(b.create({ reference: tx.reference, amount: 1, currency: 'USD', behaviour: behaviour({}) })).toBe(tx);
    expect(b.getById(tx.id)).toBe(tx);
    expect(b.stats()).toEqual({ transactions: 1, verifyCalls: 0, webhooksSent: 0 });
  });

  it('applies the outcome knobs to what the provider reports', () => {
    const b = book();
    expect(observe(create(b, { outcome: 'lower_amount' }))).toMatchObject({ amount: 5_000 });
    expect(observe(create(b, { outcome: 'lower_amount' }), 100)).toMatchObject({ amount: 5_000 });
    expect(observe(create(b, { outcome: 'other_currency' }))).toMatchObject({ currency: 'USD', amount: 10_001 });
    expect(observe(create(b, { outcome: 'other_currency' }, { currency: 'USD' }))).toMatchObject({ currency: 'NGN' });
    expect(observe(create(b, { outcome: 'other_customer' }, { phone: '+254712345678' }))).toMatchObject({
      email: OTHER_CUSTOMER_EMAIL,
      phone: '+254712340123',
    });
    expect(otherPhone('254700000000')).toBe('254700005555');
  });
});

describe('money', () => {
  it('converts minor units with the ISO 4217 exponent of each currency', () => {
    expect(currencyExponent('NGN')).toBe(2);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('BHD')).toBe(3);
    expect(toMajorUnits(12_345, 'NGN')).toBe(123.45);
    expect(toMajorUnits(10_000, 'KES')).toBe(100);
    expect(toMajorUnits(500, 'JPY')).toBe(500);
    expect(toMajorUnits(1_005, 'BHD')).toBe(1.005);
    expect(toMajorUnits(10, 'USD')).toBe(0.1);
  });
});

describe('credential checks', () => {
  const secret = new Secret(`sk_test_${randomBytes(16).toString('hex')}`);

  it('compares secrets whole, in constant time, and treats a missing value as wrong', () => {
    expect(secretEquals(secret.reveal(), secret)).toBe(true);
    expect(secretEquals(secret.reveal().slice(0, -1), secret)).toBe(false);
    expect(secretEquals(`${secret.reveal()}x`, secret)).toBe(false);
    expect(secretEquals(undefined, secret)).toBe(false);
    expect(secretEquals(null, '')).toBe(false);
    expect(secretEquals('', '')).toBe(true);
  });

  it('reads Bearer and Basic headers', () => {
    expect(bearerToken(`Bearer ${secret.reveal()}`)).toBe(secret.reveal());
    expect(bearerToken(`bearer   abc`)).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerMatches(`Bearer ${secret.reveal()}`, secret)).toBe(true);
    expect(bearerMatches(`Bearer ${secret.reveal()}0`, secret)).toBe(false);
    expect(basicCredentials(`Basic ${Buffer.from('key:sec:ret').toString('base64')}`)).toEqual({ user: 'key', password: 'sec:ret' });
    expect(basicCredentials(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toBeNull();
    expect(basicCredentials('Bearer x')).toBeNull();
  });
});
