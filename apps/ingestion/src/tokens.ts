/** Injection tokens of the ingestion app. */
export const CONFIG = Symbol('IngestionConfig');
export const PG_POOL = Symbol('PgPool');
export const LOGGER = Symbol('Logger');
export const OUTBOX = Symbol('Outbox');
export const OUTBOX_RELAY = Symbol('OutboxRelay');
export const METRICS = Symbol('IngestionMetrics');
export const WEBHOOK_SECRETS = Symbol('WebhookSecrets');
/** Every provider's webhook scheme bound to its settings (`webhookAuthenticators` of `@settle/providers`). */
export const WEBHOOK_AUTHENTICATORS = Symbol('WebhookAuthenticators');
