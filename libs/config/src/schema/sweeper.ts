import { z } from 'zod';
import { int, sharedEnv, workerTuning } from './shared.js';

export const sweeperEnv = sharedEnv.extend(workerTuning({ poolSize: 5, partitionsConcurrency: 12 })).extend({
  SWEEPER_INACTIVITY_MS: int(45_000, 1).meta({
    description: 'Inactivity after which a transaction is orphaned, milliseconds (docs/spec.md, section 8: 45 s).',
  }),
  SWEEPER_TICK_MS: int(30_000, 10).meta({
    description:
      "Longest sleep between two looks for due watches, milliseconds. The sweeper wakes when the earliest watch of its partitions falls due, as read after each look or told by the batch of activity that armed it and by a new claim of partitions, so the tick is a safety net and an idle sweeper's only look; each look is a transaction.",
  }),
  SWEEPER_BATCH_SIZE: int(1_000, 1).meta({ description: 'Most verification requests published per database transaction.' }),
  SWEEPER_RECHECK_INITIAL_DELAY_MS: int(60_000, 1).meta({
    description: 'First re-check delay (held in review) and wait between the first two re-checks, milliseconds.',
  }),
  SWEEPER_RECHECK_BACKOFF_FACTOR: z.coerce
    .number()
    .min(1)
    .max(10)
    .default(2)
    .meta({ description: 'Growth of the wait from one re-check to the next (exponential backoff).' }),
  SWEEPER_RECHECK_MAX_DELAY_MS: int(3_600_000, 1).meta({ description: 'Longest wait between two re-checks, milliseconds (one hour).' }),
  SWEEPER_RECHECK_JITTER_RATIO: z.coerce.number().min(0).max(0.5).default(0.1).meta({ description: 'Spread of each wait as a fraction (0.1 is +/- 10 %).' }),
  SWEEPER_RECHECK_LIMIT: int(30, 1).meta({ description: 'Automatic re-checks before a transaction moves to manual review (30: about 24 hours).' }),
  SWEEPER_SESSION_TIMEOUT_MS: int(6_000, 1_000).meta({
    description:
      "Consumer-group session time-out, milliseconds: how long a silent (crashed) sweeper keeps its partitions before the group hands them to a survivor (6 000, the broker's smallest allowed, bounds the recovery after a crash; docs/reliability.md).",
  }),
});
