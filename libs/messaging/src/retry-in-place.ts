import { ExponentialBackoff, handleWhen, retry, type IBackoffFactory, type IRetryBackoffContext } from 'cockatiel';

/** Retries ended because the member no longer holds the partition (see {@link retryInPlace}); `cause` is the last failure. */
export class Abandoned extends Error {
  constructor(override readonly cause: unknown) {
    super('retries abandoned: the partition is no longer held');
    this.name = 'Abandoned';
  }
}

/**
 * The backoff between attempts of a retry in place: exponential from 200 ms, never longer than
 * a third of the session time-out (and 10 s), so the heartbeat before each attempt keeps the
 * member's partitions during a long outage (database or broker down).
 *
 * @param sessionTimeoutMs - the consumer group's session time-out, milliseconds.
 */
export function retryBackoff(sessionTimeoutMs: number): IBackoffFactory<IRetryBackoffContext<unknown>> {
  return new ExponentialBackoff({ initialDelay: 200, maxDelay: Math.max(200, Math.min(10_000, Math.floor(sessionTimeoutMs / 3))) });
}

/** How {@link retryInPlace} retries. */
export interface RetryInPlaceOptions {
  /** Whether a failure may be retried (a transient one). */
  retryable: (error: unknown) => boolean;
  /** Called before each retry (attempt from 1) with the failure that caused it, for a log line. */
  onRetry: (attempt: number, error: unknown) => void;
  /** Whether the batch went stale or the loop is stopping: retrying ends. */
  stale: () => boolean;
  /** The batch's heartbeat, sent before each retry; a failure means the member lost the group. */
  heartbeat: () => Promise<void>;
  /** Backoff between attempts, see {@link retryBackoff}. */
  backoff: IBackoffFactory<IRetryBackoffContext<unknown>>;
}

/**
 * Runs `work`, retrying in place (with backoff) the failures `retryable` accepts, for as long
 * as this member keeps the partition: a heartbeat between attempts keeps the membership alive
 * during a long outage (database or broker down), and the retries end when the batch goes
 * stale or a heartbeat fails (the group is rebalancing, this member was evicted).
 *
 * @throws Abandoned when the retries ended that way (nothing is resolved: the messages are
 *   delivered again, to this member or the partition's next owner); else the last error.
 */
export async function retryInPlace<T>(options: RetryInPlaceOptions, work: () => Promise<T>): Promise<T> {
  let lostGroup = false;
  let last: unknown = null;
  const abandoned = () => options.stale() || lostGroup;
  const policy = retry(
    handleWhen((error) => {
      last = error;
      return !abandoned() && options.retryable(error);
    }),
    { maxAttempts: Number.MAX_SAFE_INTEGER, backoff: options.backoff },
  );
  try {
    return await policy.execute(async ({ attempt }) => {
      if (attempt > 0) {
        options.onRetry(attempt, last);
        await options.heartbeat().catch((error: unknown) => {
          lostGroup = true;
          throw error;
        });
      }
      return work();
    });
  } catch (error) {
    if (abandoned()) throw new Abandoned(error);
    throw error;
  }
}
