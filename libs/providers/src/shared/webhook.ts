import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { SignatureCheck } from './signature-check.js';

/** What ingestion keeps of a verified webhook: a trigger, never an outcome. */
export interface WebhookTrigger {
  /**
   * Transaction reference the event names (the checkout's reference for each provider), as
   * read from the payload; the caller still applies its own reference rule to it.
   */
  reference: string;
  /** The provider's event name (`charge.success`, `payment_intent.succeeded`, ...). */
  eventType: string;
  /**
   * Whether the event is a notification about a settled payment's money (a refund, a dispute: the
   * scheme's {@link WebhookScheme.movementNotifications}); `reference` is then the payment's.
   */
  movement?: true;
  /**
   * The provider's event identity, for de-duplication in the webhook inbox: Stripe's event id,
   * Flutterwave's transaction id and status, M-Pesa's CheckoutRequestID and ResultCode, and for
   * Paystack (whose events carry no id) the SHA-256 of the verified body.
   */
  dedupeKey: string;
}

/** A webhook request as the HTTP edge hands it over, before anything in it is trusted. */
export interface WebhookRequest {
  /** The body exactly as received, before any parsing. */
  rawBody: Buffer;
  /** Request headers, names in lower case (Node's `IncomingHttpHeaders`). */
  headers: IncomingHttpHeaders;
  /** Path and query as received (M-Pesa's secret token is its last path segment). */
  path: string;
  /** The peer's address (no proxy header is trusted), for source allowlists. */
  sourceAddress: string | undefined;
  /** The time of receipt, epoch milliseconds (timestamped schemes: Stripe). */
  nowMs: number;
}

/**
 * The outcome of a webhook's authenticity check: a {@link SignatureCheck}, or a refusal of the
 * sender itself (`forbidden`: a source outside the allowlist, answered 403 and never used as a
 * trigger, not even for a verification on our own initiative).
 */
export type WebhookCheck = SignatureCheck | { readonly ok: false; readonly reason: string; readonly forbidden?: boolean };

/**
 * How one provider's webhooks (or callbacks) are read: route shape, secret names, payload.
 */
export interface WebhookScheme {
  /**
   * URL shape under `/v1/webhooks/`: `plain` is `POST /v1/webhooks/<provider>`; `token` is
   * `POST /v1/webhooks/<provider>/<secret token>` (M-Pesa, whose callbacks carry no signature).
   */
  readonly route: 'plain' | 'token';
  /**
   * Vault names (in ingestion's webhook vault) of the current secret and of the previous one
   * still accepted during a rotation's grace period (docs/vault.md).
   */
  readonly secretNames: { readonly current: string; readonly previous: string };
  /** Where an untrusted body names the transaction reference (a JSON path). */
  readonly referencePath: readonly string[];
  /**
   * The provider's notifications about a settled payment's money (docs/provider-facts.md,
   * "Refunds, reversals and disputes"): only triggers, like every webhook; the verifier then
   * reads the payment's refunds and disputes server to server. Absent: the provider sends none.
   */
  readonly movementNotifications?: MovementNotifications;
  /**
   * Reads the trigger from a verified body, or `null` when the body is not an event of the
   * provider's documented shape (a 400 for the sender). Never throws.
   */
  trigger(rawBody: Buffer): WebhookTrigger | null;
}

/**
 * Which of a provider's events are about a settled payment's money, and where they name the payment.
 */
export interface MovementNotifications {
  /** Where a body names its event type (a JSON path). */
  readonly eventTypePath: readonly string[];
  /** By event type prefix (`refund.`, `charge.dispute.`): the paths where the body names the payment's reference, the first string found wins. */
  readonly kinds: ReadonlyArray<{ readonly prefix: string; readonly referencePaths: ReadonlyArray<readonly string[]> }>;
}

/**
 * The payment a notification about its money names, with the event type, or `null` when the
 * body is not such a notification (or names no payment). Reads an untrusted body too (a rejected
 * webhook's payment is verified by REST). Never throws.
 */
export function movementNotificationOf(notifications: MovementNotifications | undefined, body: unknown): { reference: string; eventType: string } | null {
  if (!notifications) return null;
  const eventType = asText(valueAt(body, notifications.eventTypePath));
  const kind = eventType ? notifications.kinds.find((k) => eventType.startsWith(k.prefix)) : undefined;
  if (!eventType || !kind) return null;
  for (const path of kind.referencePaths) {
    const reference = asText(valueAt(body, path));
    if (reference) return { reference, eventType };
  }
  return null;
}

/** Whether an event type (a verified webhook's, as recorded) is one of the scheme's notifications about a settled payment's money. */
export function isMovementEventType(notifications: MovementNotifications | undefined, eventType: string): boolean {
  return notifications?.kinds.some((k) => eventType.startsWith(k.prefix)) ?? false;
}

/** A webhook scheme bound to its settings: what ingestion calls per request. */
export interface WebhookAuthenticator {
  /**
   * Checks a request against candidate secrets (current first, then previous ones).
   *
   * @throws SignatureConfigError for no or empty candidate secrets (a deployment error).
   */
  authenticate(request: WebhookRequest, secrets: readonly string[]): WebhookCheck;
}

/** Hex SHA-256 of the raw body. */
export function bodyDigest(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** The body as JSON, or `undefined` when it is not JSON. Never throws. */
export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The value at a JSON path, or `undefined`. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A non-empty string of at most 200 characters, else `null`. */
export function asText(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}
