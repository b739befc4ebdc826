import { createHash } from 'node:crypto';
import { parseMpesaStkCallback } from './signatures/index.js';
import { REFERENCE_PATTERN } from '../checkouts/checkout.request.js';

/** Providers that post webhooks (or callbacks) to ingestion. */
export type WebhookProvider = 'paystack' | 'stripe' | 'flutterwave' | 'mpesa';

/** What ingestion keeps of a verified webhook: a trigger, never an outcome. */
export interface WebhookTrigger {
  /** Transaction reference the event names (the checkout's reference for each provider). */
  reference: string;
  /** The provider's event name (`charge.success`, `payment_intent.succeeded`, ...). */
  eventType: string;
  /**
   * The provider's event identity, for de-duplication in the webhook inbox: Stripe's event id,
   * Flutterwave's transaction id and status, M-Pesa's CheckoutRequestID and ResultCode, and for
   * Paystack (whose events carry no id) the SHA-256 of the verified body.
   */
  dedupeKey: string;
}

/** Hex SHA-256 of the raw body. */
export function bodyDigest(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const asReference = (v: unknown): string | null => (typeof v === 'string' && REFERENCE_PATTERN.test(v) ? v : null);
const asText = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null);

/** Where each provider's payload names the transaction reference. */
const REFERENCE_PATHS: Record<WebhookProvider, readonly string[]> = {
  paystack: ['data', 'reference'],
  stripe: ['data', 'object', 'id'],
  flutterwave: ['data', 'tx_ref'],
  mpesa: ['Body', 'stkCallback', 'CheckoutRequestID'],
};

/**
 * Reads the transaction reference from an untrusted (unverified) body: never throws, returns
 * only a well-formed reference. The body is already size-limited by the HTTP layer.
 */
export function untrustedReference(provider: WebhookProvider, raw: Buffer): string | null {
  return asReference(at(parseJson(raw), REFERENCE_PATHS[provider]));
}

/**
 * Reads the trigger from a verified body, or `null` when the body is not an event of the
 * provider's documented shape (a 400 for the sender).
 */
export function webhookTrigger(provider: WebhookProvider, raw: Buffer): WebhookTrigger | null {
  if (provider === 'mpesa') {
    const parsed = parseMpesaStkCallback(raw);
    if (!parsed.ok) return null;
    const { checkoutRequestId, resultCode } = parsed.value;
    return { reference: checkoutRequestId, eventType: 'stk_callback', dedupeKey: `${checkoutRequestId}:${resultCode}` };
  }
  const body = parseJson(raw);
  const reference = asReference(at(body, REFERENCE_PATHS[provider]));
  if (!reference) return null;
  switch (provider) {
    case 'paystack': {
      const eventType = asText(at(body, ['event']));
      return eventType ? { reference, eventType, dedupeKey: bodyDigest(raw) } : null;
    }
    case 'stripe': {
      const eventType = asText(at(body, ['type']));
      const id = asText(at(body, ['id']));
      return eventType && id ? { reference, eventType, dedupeKey: id } : null;
    }
    case 'flutterwave': {
      const eventType = asText(at(body, ['event']));
      const id = at(body, ['data', 'id']);
      const status = asText(at(body, ['data', 'status']));
      return eventType && (typeof id === 'number' || typeof id === 'string') && status ? { reference, eventType, dedupeKey: `${String(id)}:${status}` } : null;
    }
  }
}
