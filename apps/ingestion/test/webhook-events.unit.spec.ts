import { describe, expect, it } from 'vitest';
import { untrustedReference as fromBody, webhookTrigger } from '../src/webhooks/webhook-events.js';

const untrustedReference = (raw: Buffer) => fromBody('paystack', raw);
const body = Buffer.from('{"event":"charge.success","data":{"reference":"ref_1","amount":40000}}');

describe('reading a reference from an untrusted body', () => {
  it('returns a well-formed data.reference and nothing else, without throwing', () => {
    expect(untrustedReference(body)).toBe('ref_1');
    expect(untrustedReference(Buffer.from('{not json'))).toBeNull();
    expect(untrustedReference(Buffer.from('{"data":{"reference":"../../etc/passwd"}}'))).toBeNull();
    expect(untrustedReference(Buffer.from('{"data":{"reference":42}}'))).toBeNull();
    expect(untrustedReference(Buffer.from('null'))).toBeNull();
  });
});

describe('reading the trigger from a verified body', () => {
  it('applies the reference rule to what the provider payload names', () => {
    expect(webhookTrigger('paystack', body)).toMatchObject({ reference: 'ref_1', eventType: 'charge.success' });
    expect(webhookTrigger('paystack', Buffer.from('{"event":"charge.success","data":{"reference":"../x"}}'))).toBeNull();
    expect(webhookTrigger('stripe', Buffer.from('{"id":"evt_1","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1"}}}'))).toEqual({
      reference: 'pi_1',
      eventType: 'payment_intent.succeeded',
      dedupeKey: 'evt_1',
    });
  });
});
