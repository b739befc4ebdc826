import { z } from 'zod';
import { int, sharedEnv, workerTuning } from './shared.js';

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
});
