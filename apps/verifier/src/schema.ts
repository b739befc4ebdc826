import { outboxDdl } from '@settle/messaging';

/**
 * Tables the verifier owns (schema `verifier`): the state of each transaction as the decider
 * folded it (a state-stored decider), the inbox of processed message ids (so a redelivered
 * trigger never queries the provider twice), and the outbox of consensus results.
 */
export const VERIFIER_DDL: readonly string[] = [
  ...outboxDdl('verifier'),
  `CREATE TABLE IF NOT EXISTS verifier.transactions (
     reference text PRIMARY KEY,
     provider text NOT NULL,
     amount_minor bigint NOT NULL,
     currency char(3) NOT NULL,
     user_id text NOT NULL,
     customer_email text,
     customer_phone text,
     entitlement text NOT NULL,
     correlation_id text NOT NULL,
     status text NOT NULL,
     entitlement_status text NOT NULL,
     completed_at bigint,
     outcomes integer NOT NULL DEFAULT 0,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  // Access periods (what a payment buys) arrived after the first release.
  'ALTER TABLE verifier.transactions ADD COLUMN IF NOT EXISTS access_period text',
  `CREATE TABLE IF NOT EXISTS verifier.inbox (
     event_id uuid PRIMARY KEY,
     processed_at timestamptz NOT NULL DEFAULT now()
   )`,
];
