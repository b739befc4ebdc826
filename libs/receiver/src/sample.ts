import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EntitlementEvent } from './event.js';
import { SignatureVerifier } from './signature.js';

/**
 * Signed sample deliveries, so that an integrator can try their own endpoint without Settle: the
 * same Standard Webhooks scheme, headers and body Settle sends (README, "Quick start" and "Send
 * yourself a signed event"). Used by the `settle-receiver send-sample` command.
 */

/**
 * A sample event: `subscription_started` of `pro-monthly` for `user-42` (revision 0), expiring 30
 * days from `now`, with a fresh `event_id`; any field overridden (the caller keeps the kind's own
 * fields consistent: a `subscription_revoked` needs `reason` and `changed_at`).
 *
 * @param now - the settlement time; default the current time.
 */
export function sampleEvent(overrides: Partial<EntitlementEvent> = {}, now: Date = new Date()): EntitlementEvent {
  return {
    event_id: randomUUID(),
    event: 'subscription_started',
    entitlement: 'pro-monthly',
    user_id: 'user-42',
    expires_at: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
    revision: 0,
    reference: `ref_sample_${randomUUID().slice(0, 8)}`,
    settled_at: now.toISOString(),
    access_period: 'P1M',
    ...overrides,
  } as EntitlementEvent;
}

/** A delivery ready to send: the exact body bytes and the headers that sign them. */
export interface SignedDelivery {
  /** `content-type`, `webhook-id` (the event's id), `webhook-timestamp` (unix seconds), `webhook-signature` (`v1,<base64>`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, exactly the bytes the signature covers. */
  readonly body: string;
}

/**
 * Signs an event as Settle does: HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>` keyed
 * with the base64 part of the `whsec_` secret (Standard Webhooks, through the `standardwebhooks`
 * package), `webhook-id` the event's `event_id`.
 *
 * @param secret - the endpoint's `whsec_` secret.
 * @param at - the signing time (the receiver refuses one more than 5 minutes away); default now.
 * @throws {@link ReceiverConfigError} when `secret` is not a `whsec_` secret (never naming it).
 */
export function signDelivery(secret: string, event: EntitlementEvent, at: Date = new Date()): SignedDelivery {
  // The same check the receiver applies to its secrets, with the same error.
  new SignatureVerifier([secret]);
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.event_id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.event_id, at, body),
    },
  };
}

/** What {@link sendSampleEvent} got back. */
export interface SampleAnswer {
  readonly event: EntitlementEvent;
  readonly status: number;
  /** The answer's body as text. */
  readonly body: string;
}

/**
 * Sends one signed sample event to an endpoint (`POST`, as Settle delivers) and returns the
 * answer. Nothing is retried.
 *
 * @param options.url - the endpoint, for example `http://127.0.0.1:4000/webhook/settle`.
 * @param options.secret - the endpoint's `whsec_` secret.
 * @param options.event - fields of {@link sampleEvent} to override.
 * @param options.timeoutMs - longest wait for the answer, milliseconds; default 10000.
 * @throws {@link ReceiverConfigError} for a secret that is not a `whsec_` secret; a fetch error
 *   when the endpoint cannot be reached or does not answer in time.
 */
export async function sendSampleEvent(options: { url: string; secret: string; event?: Partial<EntitlementEvent>; timeoutMs?: number }): Promise<SampleAnswer> {
  const event = sampleEvent(options.event);
  const delivery = signDelivery(options.secret, event);
  const response = await fetch(options.url, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  return { event, status: response.status, body: await response.text() };
}
