import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EntitlementEvent } from '../../src/index.js';

/** A fresh endpoint secret, as Settle makes them: `whsec_` + base64 of 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** An event of the contract; override any field. */
export function entitlementEvent(overrides: Partial<Record<keyof EntitlementEvent, string>> = {}): EntitlementEvent {
  return {
    event_id: randomUUID(),
    event: 'subscription_started',
    entitlement: 'pro-monthly',
    user_id: 'user-42',
    expires_at: '2026-12-23T10:15:30.000Z',
    reference: 'ref_abc',
    settled_at: '2026-11-23T10:15:30.000Z',
    access_period: 'P1M',
    ...overrides,
  } as EntitlementEvent;
}

/**
 * A delivery as Settle sends it, signed by the `standardwebhooks` package itself: one `v1`
 * signature per secret, space-separated (a rotation on Settle's side when there are several).
 */
export function delivery(
  payload: object | string,
  secrets: readonly string[],
  options: { id?: string; timestamp?: Date } = {},
): { body: string; headers: Record<string, string> } {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const id = options.id ?? (typeof payload === 'object' && 'event_id' in payload ? String(payload.event_id) : randomUUID());
  const timestamp = options.timestamp ?? new Date();
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' '),
    },
  };
}

/** Waits until `probe` returns a value that is not undefined, or fails after the deadline. */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
