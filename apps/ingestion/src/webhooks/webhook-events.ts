import { isWellFormedReference, type ProviderName } from '@settle/domain';
import { movementNotificationOf, parseJson, PROVIDER_REGISTRY, valueAt, type WebhookTrigger } from '@settle/providers';

export { bodyDigest, type WebhookTrigger } from '@settle/providers';

/** Providers that post webhooks (or callbacks) to ingestion: every provider of the registry. */
export type WebhookProvider = ProviderName;

export { isWellFormedReference } from '@settle/domain';

const asReference = (v: unknown): string | null => (typeof v === 'string' && isWellFormedReference(v) ? v : null);

/**
 * Reads the transaction reference from an untrusted (unverified) body, where the provider's
 * payload names it: the payment a refund or dispute notification names (its scheme's
 * `movementNotifications`), else `referencePath` of its definition. Never throws, returns only a
 * well-formed reference. The body is already size-limited by the HTTP layer.
 */
export function untrustedReference(provider: WebhookProvider, raw: Buffer): string | null {
  const body = parseJson(raw);
  const { webhook } = PROVIDER_REGISTRY[provider];
  return asReference(movementNotificationOf(webhook.movementNotifications, body)?.reference ?? valueAt(body, webhook.referencePath));
}

/**
 * Reads the trigger from a verified body (the provider's own parser, then ingestion's
 * reference rule), or `null` when the body is not an event of the provider's documented shape
 * (a 400 for the sender).
 */
export function webhookTrigger(provider: WebhookProvider, raw: Buffer): WebhookTrigger | null {
  const trigger = PROVIDER_REGISTRY[provider].webhook.trigger(raw);
  return trigger && asReference(trigger.reference) ? trigger : null;
}
