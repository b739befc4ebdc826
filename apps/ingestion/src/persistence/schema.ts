import { outboxDdl } from '@settle/messaging';

/**
 * Tables the ingestion app owns (schema `ingestion`): the checkout registrations (the terms
 * each reference was registered with, for idempotent retries and 409 conflicts), the
 * webhook inbox (de-duplication by the provider's event identity), and the outbox.
 */
export const INGESTION_DDL: readonly string[] = [
  ...outboxDdl('ingestion'),
  `CREATE TABLE IF NOT EXISTS ingestion.checkouts (
     reference text PRIMARY KEY,
     provider text NOT NULL,
     amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
     currency char(3) NOT NULL,
     user_id text NOT NULL,
     customer_email text,
     customer_phone text,
     entitlement text NOT NULL,
     request_sha256 text NOT NULL,
     correlation_id text NOT NULL,
     registered_at timestamptz NOT NULL,
     completed_at timestamptz
   )`,
  // Access periods (what a payment buys) arrived after the first release.
  'ALTER TABLE ingestion.checkouts ADD COLUMN IF NOT EXISTS access_period text',
  `CREATE TABLE IF NOT EXISTS ingestion.webhook_inbox (
     provider text NOT NULL,
     dedupe_key text NOT NULL,
     reference text,
     signature_valid boolean NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (provider, dedupe_key)
   )`,
];
