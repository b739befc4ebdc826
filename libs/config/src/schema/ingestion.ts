import { z } from 'zod';
import { digestList, host, int, port, required, sharedEnv, toDigests, workerTuning } from './shared.js';

// The worker tuning applies to ingestion's consumer loop of the checkout commands topic (docs/api.md, "Two ways in").
export const ingestionEnv = sharedEnv.extend(workerTuning({ poolSize: 20, partitionsConcurrency: 6, relayLingerMs: 25 })).extend({
  INGESTION_HOST: host('ingestion'),
  INGESTION_PORT: port('ingestion', 3000),
  SETTLE_API_KEY_SHA256: required('SETTLE_API_KEY_SHA256').transform(toDigests).meta({
    description:
      'Comma-separated SHA-256 hex digests of the API keys that upstream checkout services present as `Authorization: Bearer <key>`. Keys themselves are never configured.',
  }),
  SETTLE_ADMIN_API_KEY_SHA256: digestList().meta({
    description: 'Comma-separated SHA-256 hex digests of the admin API keys (manual reconciliation); unset: the admin API refuses every call.',
  }),
  WEBHOOK_SECRETS_REFRESH_MS: int(30_000, 100).meta({
    description:
      'Webhook signing secrets are not configuration: ingestion reads them from its own vault (schema `webhook_vault`, master keys in SETTLE_VAULT_MASTER_KEYS or _FILE), current and previous, and re-reads them this often, milliseconds.',
  }),
  SETTLE_MERCHANT_ACCOUNT: z.string().trim().min(1).default('default').meta({ description: 'Merchant account whose webhook secrets are read.' }),
  INGESTION_BODY_LIMIT_BYTES: int(262_144, 1024).meta({ description: 'Largest accepted request body, bytes.' }),
  SETTLE_VERIFY_COALESCE_MS: int(5_000, 0).meta({
    description:
      'Per reference, after a provider answer, how long a spoofed webhook, `/verify` or `/attempts` is answered from that answer instead of querying the provider again, milliseconds; a pending request of the same trigger is always shared (`decideVerificationRequest` of @settle/domain, docs/webhooks.md).',
  }),
});
