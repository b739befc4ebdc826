import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_POLICY } from '@settle/domain';
import ms from 'ms';
import { z } from 'zod';
import { digestList, host, int, sharedEnv, workerTuning } from './shared.js';

/** A comma-separated list of durations (`5s,1m,2h`, the `ms` package's units), in milliseconds. */
const durationList = (name: string, fallback: readonly number[]) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [...fallback];
      const parse = (part: string): number | undefined => {
        try {
          return ms(part.trim() as ms.StringValue);
        } catch {
          return undefined;
        }
      };
      const values = text.split(',').map(parse);
      if (values.length === 0 || values.some((v) => typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a comma-separated list of durations such as 5s,1m,2h` });
        return z.NEVER;
      }
      return values as number[];
    });

/**
 * The dispatcher: delivers entitlement events to customer endpoints (docs/delivery.md). Every
 * duration in milliseconds; defaults are the documented production values.
 */
export const dispatcherEnv = sharedEnv.extend(workerTuning({ poolSize: 10, partitionsConcurrency: 6 })).extend({
  DISPATCHER_HOST: host('dispatcher'),
  DISPATCHER_PORT: int(3200, 0).meta({ description: 'Port of the admin API, `GET /health/live`, `GET /health/ready` and `GET /metrics`.' }),
  SETTLE_ADMIN_API_KEY_SHA256: digestList().meta({
    description: 'Comma-separated SHA-256 hex digests of the admin API keys (endpoints and deliveries); unset: the admin API refuses every call.',
  }),
  SETTLE_API_KEY_SHA256: digestList().meta({
    description:
      'Comma-separated SHA-256 hex digests of the merchant\'s API keys (the ones ingestion takes), which may fetch receipts\' proofs (`GET /v1/receipts/{event_id}/proof`, docs/ledger.md, "Receipts"); unset: only admin keys may.',
  }),
  DISPATCHER_ATTEMPT_TIMEOUT_MS: int(10_000, 1).meta({ description: 'Per-attempt time-out (connection, headers and body), milliseconds.' }),
  DISPATCHER_RETRY_SCHEDULE: durationList('DISPATCHER_RETRY_SCHEDULE', DEFAULT_RETRY_POLICY.waitsMs).meta({
    description:
      "Waits after each failed attempt, such as `5s,1m,2h` (the last one ends the round: dead-lettered); default: the domain's schedule (`DEFAULT_RETRY_WAITS_MS`, 14 attempts over 97.6 h).",
    defaultText: DEFAULT_RETRY_POLICY.waitsMs.map((wait) => ms(wait)).join(','),
    unit: 'comma-separated durations (`ms` units: 5s, 1m, 2h)',
  }),
  DISPATCHER_RETRY_JITTER_RATIO: z.coerce
    .number()
    .min(0)
    .max(0.5)
    .default(DEFAULT_RETRY_POLICY.jitterRatio)
    .meta({ description: 'Spread of each wait as a fraction (0.2 is +/- 20 %).' }),
  DISPATCHER_RETRY_AFTER_MAX_MS: int(DEFAULT_RETRY_POLICY.retryAfterMaxMs, 0).meta({ description: 'Longest `Retry-After` honoured, milliseconds (6 hours).' }),
  DISPATCHER_DISABLE_AFTER_MS: int(DEFAULT_DISABLE_AFTER_MS, 1).meta({
    description: 'An endpoint failing every attempt for this long is disabled with an alert, milliseconds (5 days).',
  }),
  DISPATCHER_MAX_IN_FLIGHT: int(512, 1).meta({ description: 'Attempts in flight at once in one dispatcher instance.' }),
  DISPATCHER_MAX_IN_FLIGHT_PER_ENDPOINT: int(64, 1).meta({
    description: 'Attempts in flight at once to one endpoint: all a slow or blackholed endpoint can hold.',
  }),
  DISPATCHER_POLL_INTERVAL_MS: int(1_000, 10).meta({
    description: 'Longest sleep while nothing is known to be due, milliseconds, after a claim that took deliveries.',
  }),
  DISPATCHER_IDLE_POLL_MAX_MS: int(30_000, 10).meta({
    description:
      'Longest sleep of an idle dispatcher, milliseconds: each claim that finds nothing doubles the sleep from DISPATCHER_POLL_INTERVAL_MS up to this. Deliveries the instance records wake it and the earliest due time bounds every sleep, so this delays only deliveries another instance recorded and could not attempt itself.',
  }),
  DISPATCHER_RESULT_FLUSH_DELAY_MS: int(5, 0, 1_000).meta({
    description:
      'Longest wait before attempt results are recorded, milliseconds (at most 1000, far within the lease that holds a delivery meanwhile): results that end meanwhile share one transaction. Delays the record of a delivery, never the delivery itself.',
  }),
  DISPATCHER_SECRET_ROTATION_OVERLAP_MS: int(86_400_000, 0).meta({
    description: 'How long the previous secret keeps signing after a rotation, by default, milliseconds (24 hours).',
  }),
});
