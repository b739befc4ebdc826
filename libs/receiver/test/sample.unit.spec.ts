/**
 * Signed sample deliveries (src/sample.ts): what `settle-receiver send-sample` sends is what the
 * kit's own receiver accepts, signed as Settle signs (Standard Webhooks), and a secret that is
 * not one is refused without being named.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createNodeHandler, createReceiver, MemoryReceiverStore, ReceiverConfigError, sampleEvent, sendSampleEvent, signDelivery } from '../src/index.js';
import { newSecret } from './support/delivery.js';

const secret = newSecret();
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const receiver = createReceiver({ secrets: [secret], store: new MemoryReceiverStore(), logger: quiet });
const server = http.createServer(createNodeHandler(receiver));

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('signed sample deliveries', () => {
  it('a sample event is an event of the contract, with a fresh id, expiring 30 days after its settlement', () => {
    const now = new Date('2026-11-28T10:00:00.000Z');
    const event = sampleEvent({ user_id: 'user-7' }, now);
    expect(event).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      event: 'subscription_started',
      entitlement: 'pro-monthly',
      user_id: 'user-7',
      expires_at: '2026-12-28T10:00:00.000Z',
      revision: 0,
      reference: expect.stringMatching(/^ref_sample_/),
      settled_at: '2026-11-28T10:00:00.000Z',
      access_period: 'P1M',
    });
    expect(sampleEvent().event_id).not.toBe(sampleEvent().event_id);
  });

  it('signs as Settle does: standardwebhooks verifies it, and the receiver records it', async () => {
    const event = sampleEvent();
    const signed = signDelivery(secret, event);
    expect(signed.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': event.event_id });
    expect(() => new Webhook(secret).verify(signed.body, signed.headers)).not.toThrow();
    expect(await receiver.receive(signed.body, signed.headers)).toMatchObject({ status: 200, body: { received: true } });
    expect(await receiver.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date(event.expires_at));
  });

  it('sends one to an endpoint and returns its answer', async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const answer = await sendSampleEvent({ url, secret, event: { event: 'subscription_renewed', user_id: 'user-9' } });
    expect(answer).toMatchObject({ status: 200, event: { event: 'subscription_renewed', user_id: 'user-9' } });
    expect(JSON.parse(answer.body)).toEqual({ received: true });
    const refused = await sendSampleEvent({ url, secret: newSecret() });
    expect(refused.status).toBe(401);
  });

  it('refuses a secret that is not a whsec_ secret, never naming it', () => {
    expect(() => signDelivery('not-a-secret-value', sampleEvent())).toThrow(ReceiverConfigError);
    expect(() => signDelivery('not-a-secret-value', sampleEvent())).not.toThrow(/not-a-secret-value/);
  });
});
