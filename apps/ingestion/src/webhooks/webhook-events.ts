import { isWellFormedReference, type ProviderName } from '@settle/domain';
import { parseJson, PROVIDER_REGISTRY, valueAt, type WebhookTrigger } from '@settle/providers';

export { bodyDigest, type WebhookTrigger } from '@settle/providers';

/** Providers that post webhooks (or callbacks) to ingestion: every provider of the registry. */
export type WebhookProvider = ProviderName;

export { isWellFormedReference } from '@settle/domain';

const asReference = (v: unknown): string | null => (typeof v === 'string' && isWellFormedReference(v) ? v : null);

/**
 * Reads the transaction reference from an untrusted (unverified) body, where the provider's
 * payload names it (`referencePath` of its definition): never throws, returns only a
 * well-formed reference. The body is already size-limited by the HTTP layer.
 */
export function untrustedReference(provider: WebhookProvider, raw: Buffer): string | null {
  return asReference(valueAt(parseJson(raw), PROVIDER_REGISTRY[provider].webhook.referencePath));
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
