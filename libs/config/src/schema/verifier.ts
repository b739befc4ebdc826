import { z } from 'zod';
import { int, optionalBoolean, sharedEnv, workerTuning } from './shared.js';

export const verifierEnv = sharedEnv.extend(workerTuning({ poolSize: 10, partitionsConcurrency: 6 })).extend({
  /*
   * Each provider's own variables (base URL, M-Pesa short code, webhook settings) are
   * declared in its folder of libs/providers and composed by the app
   * (`loadWithProviderEnv` of @settle/providers).
   */
  SETTLE_MERCHANT_ACCOUNT: z
    .string()
    .trim()
    .min(1)
    .default('default')
    .meta({ description: 'Merchant account whose credentials the verifier reads from the vault.' }),
  PROVIDER_TIMEOUT_MS: int(5_000, 1).meta({ description: 'Per-call time-out of a provider query, milliseconds.' }),
  PROVIDER_RETRY_MAX_ATTEMPTS: int(4, 1).meta({ description: 'Attempts per verification, the first included, for 502, 503, 504, 429, time-outs, resets.' }),
  PROVIDER_RETRY_INITIAL_DELAY_MS: int(200, 1).meta({ description: 'First backoff delay, milliseconds (exponential, full jitter).' }),
  PROVIDER_RETRY_MAX_DELAY_MS: int(5_000, 1).meta({ description: 'Cap of one backoff delay (and of an honoured Retry-After), milliseconds.' }),
  VERIFIER_KEY_CONCURRENCY: int(64, 1).meta({
    description:
      "References of one Kafka batch verified at once (provider calls in flight per partition handled); one reference's messages are always handled in order.",
  }),
  PROVIDER_BREAKER_FAILURE_RATIO: z.coerce.number().gt(0).lt(1).default(0.5).meta({
    description:
      "Share of a provider's verifications in the window that failed (502, 503, 504, 429, time-outs, resets, after all retries) above which its circuit breaker opens; strictly between 0 and 1.",
  }),
  PROVIDER_BREAKER_WINDOW_MS: int(10_000, 1_000).meta({ description: "The sliding window a provider's failure share is taken over, milliseconds." }),
  PROVIDER_BREAKER_MIN_VERIFICATIONS: int(10, 1).meta({
    description: 'Fewest verifications of a provider in the window before its circuit breaker can open at all.',
  }),
  PROVIDER_BREAKER_HALF_OPEN_MS: int(5_000, 1).meta({
    description:
      'How long an open breaker waits before letting one probe through, milliseconds (5 000: a provider that is back is queried again within 5 s; docs/reliability.md).',
  }),
  RECONCILIATION_ENABLED: optionalBoolean('RECONCILIATION_ENABLED').meta({
    description: 'Whether this verifier runs reconciliation runs (scheduled and on demand) against the providers that list their transactions; default true.',
  }),
  RECONCILIATION_INTERVAL_MS: int(3_600_000, 1_000).meta({
    description: 'Between scheduled incremental reconciliation runs, milliseconds (default one hour).',
  }),
  RECONCILIATION_OVERLAP_MS: int(7_200_000, 0).meta({
    description: "How far each incremental run's window reaches back before the previous one's end, milliseconds (default two hours).",
  }),
  RECONCILIATION_DAILY: optionalBoolean('RECONCILIATION_DAILY').meta({
    description: 'Whether a daily run over the previous UTC day is scheduled; default true.',
  }),
  RECONCILIATION_TICK_MS: int(30_000, 100).meta({
    description: 'How often the verifier looks for due or requested reconciliation runs, milliseconds (an on-demand run starts within this).',
  }),
  RECONCILIATION_LEASE_MS: int(60_000, 1_000).meta({
    description:
      'How long a verifier holds a claimed reconciliation run before another may resume it from its cursor (renewed with every page), milliseconds: what a run waits after its verifier died.',
  }),
  RECONCILIATION_GRACE_MS: int(45_000, 0).meta({
    description: 'A provider transaction unknown here and created this recently is left to a later run (its registration may be racing), milliseconds.',
  }),
  RECONCILIATION_DUPLICATE_WINDOW_MS: int(600_000, 0).meta({
    description:
      'Two cleared payments of one user for one entitlement this close together flag the later as a possible duplicate charge, milliseconds (default 10 minutes).',
  }),
  RECONCILIATION_SCOPE: z.string().trim().default('paystack=prefix:ref_,flutterwave=prefix:ref_,stripe=metadata:settle_reference').meta({
    description:
      'Settle\'s marker per provider (docs/reconciliation.md, "Scope"): `<provider>=prefix:<reference prefix>` or `<provider>=metadata:<key>[=<value>]`, comma-separated. A provider transaction without it is counted, never compared.',
  }),
});
