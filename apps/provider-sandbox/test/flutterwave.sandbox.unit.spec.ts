import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { FLUTTERWAVE_NOT_FOUND, FlutterwaveSimulator } from '../src/flutterwave.sandbox.js';
import type { SandboxTransaction } from '../src/sandbox.core.js';
import type { Notifier, OutgoingWebhook } from '../src/webhook-sender.js';

const key = `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`;
const secretHash = randomBytes(12).toString('hex');
const auth = `Bearer ${key}`;

function setup() {
  const sent: Array<() => OutgoingWebhook> = [];
  const notifier: Notifier = { dispatch: (_tx, _provider, build) => sent.push(build) };
  const flw = new FlutterwaveSimulator(
    { secretKey: new Secret(key), webhook: { url: 'http://127.0.0.1:9/v1/webhooks/flutterwave', secretHash: new Secret(secretHash) } },
    notifier,
  );
  const create = (body: Record<string, unknown>): SandboxTransaction => {
    const outcome = flw.create({ reference: `tx_${randomBytes(4).toString('hex')}`, amount: 12_345, currency: 'NGN', email: 'ada@example.com', ...body });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.body));
    return outcome.transaction;
  };
  type Json = { kind: 'json'; status: number; body: { status: string; data: Record<string, unknown> } };
  const byRef = (ref: string) => flw.verifyByReference(auth, ref) as Json;
  const byId = (id: number | string) => flw.verifyById(auth, String(id)) as Json;
  return { flw, sent, create, byRef, byId };
}

describe('Flutterwave simulator', () => {
  it('reports the card paid with and amount_settled, null until the charge is successful', () => {
    const { flw, create, byRef } = setup();
    const paid = create({});
    const declined = create({ behaviour: { outcome: 'declined' } });
    const clearing = create({ behaviour: { outcome: 'clearing_then_success', clearing_checks: 5 } });
    for (const tx of [paid, declined, clearing]) flw.pay(tx.reference);
    const card = { first_6digits: '553188', last_4digits: '2950', type: 'MASTERCARD', token: expect.stringMatching(/^flw-t1nf-/), expiry: '09/32' };
    expect(byRef(paid.reference).body.data).toMatchObject({ amount: 123.45, app_fee: 1.73, amount_settled: 121.72, card, meta: null });
    expect(byRef(declined.reference).body.data).toMatchObject({ status: 'failed', amount_settled: null, card });
    expect(byRef(clearing.reference).body.data).toMatchObject({ status: 'pending', amount_settled: null, card });
  });

  it('answers verify (by id and by tx_ref) in major units with Flutterwave statuses', () => {
    const { flw, create, byRef, byId } = setup();
    const tx = create({ phone: '+2348012345678' });
    flw.pay(tx.reference);
    const answer = byRef(tx.reference);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'success',
      data: {
        id: tx.id,
        tx_ref: tx.reference,
        amount: 123.45,
        charged_amount: 123.45,
        app_fee: 1.73,
        currency: 'NGN',
        status: 'successful',
        customer: { email: 'ada@example.com', phone_number: '+2348012345678' },
      },
    });
    expect(answer.body.data.flw_ref).toMatch(/^FLW-MOCK-/);
    expect(byId(tx.id).body.data).toEqual(byRef(tx.reference).body.data);
    expect(tx.verifyCalls).toBe(3);
  });

  it('converts with each currency exponent', () => {
    const { flw, create, byRef } = setup();
    const yen = create({ currency: 'JPY', amount: 500 });
    const dinar = create({ currency: 'BHD', amount: 1_005 });
    flw.pay(yen.reference);
    flw.pay(dinar.reference);
    expect(byRef(yen.reference).body.data).toMatchObject({ amount: 500, currency: 'JPY' });
    expect(byRef(dinar.reference).body.data).toMatchObject({ amount: 1.005, currency: 'BHD' });
  });

  it('reports failed, pending, and "not found" until the customer has tried to pay', () => {
    const { flw, create, byRef, byId } = setup();
    const unpaid = create({});
    expect(byRef(unpaid.reference)).toEqual({ kind: 'json', status: 400, body: FLUTTERWAVE_NOT_FOUND });
    expect(byId(unpaid.id)).toEqual({ kind: 'json', status: 400, body: FLUTTERWAVE_NOT_FOUND });
    const declined = create({ behaviour: { outcome: 'declined' } });
    flw.pay(declined.reference);
    expect(byRef(declined.reference).body.data).toMatchObject({ status: 'failed', processor_response: 'Insufficient funds' });
    const clearing = create({ behaviour: { outcome: 'clearing_then_success' } });
    flw.pay(clearing.reference);
    expect(byRef(clearing.reference).body.data).toMatchObject({ status: 'pending' });
    expect(byRef(clearing.reference).body.data).toMatchObject({ status: 'successful' });
  });

  it('answers 400 not found for unknown or non-numeric ids, and 401 for a wrong key', () => {
    const { flw } = setup();
    expect(flw.verifyById(auth, '999')).toEqual({
      kind: 'json',
      status: 400,
      body: { status: 'error', message: 'No transaction was found for this id', data: null },
    });
    expect(flw.verifyById(auth, 'abc')).toMatchObject({ status: 400, body: FLUTTERWAVE_NOT_FOUND });
    expect(flw.verifyByReference(auth, 'nope')).toMatchObject({ status: 400, body: FLUTTERWAVE_NOT_FOUND });
    expect(flw.verifyByReference(`Bearer FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`, 'x')).toMatchObject({
      status: 401,
      body: { status: 'error', data: null },
    });
    expect(flw.verifyById(undefined, '1')).toMatchObject({ status: 401 });
  });

  it('sends charge.completed with the secret hash as verif-hash (a wrong hash when spoofing)', () => {
    const { flw, create, sent } = setup();
    const good = create({});
    const spoofed = create({ behaviour: { webhook: 'spoof' } });
    const declined = create({ behaviour: { outcome: 'declined' } });
    for (const tx of [good, spoofed, declined]) flw.pay(tx.reference);
    const [g, s, d] = sent.map((build) => build());
    expect(g!.headers['verif-hash']).toBe(secretHash);
    expect(g!.headers['flutterwave-signature']).toBe(createHmac('sha256', secretHash).update(g!.body).digest('base64'));
    expect(JSON.parse(g!.body)).toMatchObject({ event: 'charge.completed', data: { tx_ref: good.reference, status: 'successful', amount: 123.45 } });
    expect(s!.headers['verif-hash']).not.toBe(secretHash);
    expect(s!.headers['verif-hash']).toHaveLength(secretHash.length);
    expect(JSON.parse(d!.body)).toMatchObject({ event: 'charge.completed', data: { status: 'failed' } });
  });
});
