/**
 * The webhook intake as an application service (src/webhooks/webhook-intake.ts): each webhook
 * comes to one tagged outcome, whole, without HTTP; the inbox is a recorder (the real one is
 * covered by the integration tests).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { webhookAuthenticators } from '@settle/providers';
import { WebhookIntake, type IncomingWebhook } from '../src/webhooks/webhook-intake.js';
import type { WebhookRepository } from '../src/webhooks/webhook.repository.js';

const secret = `sk_test_${randomBytes(16).toString('hex')}`;
const authenticators = webhookAuthenticators({ MPESA_CALLBACK_ALLOWLIST: '', WEBHOOK_TOLERANCE_MS: '300000' });

/** An intake over an inbox that records, or fails every write; Paystack configured, no other provider. */
function intakeWith(inbox: { fresh?: boolean; fails?: boolean } = {}) {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const write = <T>(name: string, input: Record<string, unknown>, value: T): Promise<T> => {
    calls.push([name, input]);
    return inbox.fails ? Promise.reject(new Error('database down')) : Promise.resolve(value);
  };
  const repository = {
    recordVerified: (input: Record<string, unknown>) => write('recordVerified', input, inbox.fresh ?? true),
    requestVerificationAfterRejection: (input: Record<string, unknown>) => write('requestVerification', input, { kind: 'requested', requestId: 'req-1' }),
  } as unknown as WebhookRepository;
  const secrets = { candidates: (provider: string) => (provider === 'paystack' ? [new Secret(secret)] : []) };
  return { intake: new WebhookIntake(authenticators, secrets, repository), calls };
}

function paystack(body: string, signature = createHmac('sha512', secret).update(body).digest('hex')): IncomingWebhook {
  return { rawBody: Buffer.from(body), headers: { 'x-paystack-signature': signature }, path: '/v1/webhooks/paystack', sourceAddress: '127.0.0.1' };
}

const event = (reference: string) => JSON.stringify({ event: 'charge.success', data: { reference, amount: 40_000 } });

describe('WebhookIntake.receive: one tagged outcome per webhook', () => {
  it('accepted: signed, of the shape, stored', async () => {
    const { intake, calls } = intakeWith();
    expect(await intake.receive('paystack', paystack(event('ref_intake_1')))).toEqual({
      kind: 'accepted',
      reference: 'ref_intake_1',
      eventType: 'charge.success',
    });
    expect(calls.map(([name]) => name)).toEqual(['recordVerified']);
  });

  it('duplicate: already in the inbox', async () => {
    const { intake } = intakeWith({ fresh: false });
    expect(await intake.receive('paystack', paystack(event('ref_intake_2')))).toEqual({
      kind: 'duplicate',
      reference: 'ref_intake_2',
      eventType: 'charge.success',
    });
  });

  it('rejected: a forged signature; the checkout it names gets a verification request instead', async () => {
    const { intake, calls } = intakeWith();
    const outcome = await intake.receive('paystack', paystack(event('ref_intake_3'), 'ab'.repeat(64)));
    expect(outcome).toEqual({
      kind: 'rejected',
      reason: expect.any(String),
      reference: 'ref_intake_3',
      verification: { kind: 'requested', requestId: 'req-1' },
    });
    expect(calls).toEqual([['requestVerification', expect.objectContaining({ provider: 'paystack', reference: 'ref_intake_3' })]]);
  });

  it('ambiguous: a repeated key; each reference named gets a verification request', async () => {
    const { intake } = intakeWith();
    const body = '{"event": "charge.success", "data": {"reference": "ref_a", "reference": "ref_b"}}';
    expect(await intake.receive('paystack', paystack(body))).toEqual({
      kind: 'ambiguous',
      ambiguities: [expect.objectContaining({ code: 'REQUEST.DUPLICATE_KEY', path: '/data/reference' })],
      verifications: { ref_a: 'requested', ref_b: 'requested' },
    });
  });

  it('malformed: signed, but not an event of the shape', async () => {
    const { intake, calls } = intakeWith();
    expect(await intake.receive('paystack', paystack('{"hello": "world"}'))).toEqual({ kind: 'malformed' });
    expect(calls).toEqual([]);
  });

  it('not_configured: no secret stored for the provider', async () => {
    const { intake } = intakeWith();
    expect(await intake.receive('stripe', paystack(event('ref_x')))).toEqual({ kind: 'not_configured' });
  });

  it('not_durable: the inbox could not store it', async () => {
    const { intake } = intakeWith({ fails: true });
    expect(await intake.receive('paystack', paystack(event('ref_intake_4')))).toEqual({ kind: 'not_durable', error: new Error('database down') });
  });
});
