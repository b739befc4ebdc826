import pMap from 'p-map';

/** Settings of {@link runPerKey}. */
export interface PerKeyBatchOptions<K> {
  /** The batch's keys (the verifier's: one per reference), each with its own steps in offset order. */
  keys: readonly K[];
  /** Keys worked on at once (the verifier's `VERIFIER_KEY_CONCURRENCY`: provider calls in flight). */
  concurrency: number;
  /** How often the keys finished meanwhile are committed while others still run, milliseconds. */
  flushIntervalMs: number;
  /**
   * Works one key's steps, in order, in memory. Resolves with the transient error that stopped
   * the key part-way (its steps before that are still committed), or `undefined` when it ran to
   * the end.
   */
  run: (key: K) => Promise<unknown>;
  /** Commits what finished keys decided, all at once (one transaction). */
  commit: (finished: K[]) => Promise<void>;
}

/**
 * The verifier's per-key batch engine (docs/architecture.md, "Batch first"): the keys of a
 * fetched batch run in parallel, up to `concurrency` at once, each key's steps in order; the
 * keys that finish together commit together (one commit per batch in the usual case), and while
 * some keys still wait (a slow provider answer), those finished meanwhile are committed every
 * `flushIntervalMs`, so one slow answer delays only its own key's result. Resolves once every
 * key's work is committed.
 *
 * @throws the first error of an intermediate commit (what it held is committed by the retried
 *   batch; what committed before is skipped by the caller's inbox), else the final commit's
 *   error, else the first transient error a key reported (the batch is retried, and resumes that
 *   key from its first unhandled step).
 */
export async function runPerKey<K>(options: PerKeyBatchOptions<K>): Promise<void> {
  const { keys, concurrency, flushIntervalMs, run, commit } = options;
  let transient: unknown;
  const finished: K[] = [];
  let running = true;
  const work = pMap(
    keys,
    async (key) => {
      try {
        const failure = await run(key);
        if (failure !== undefined) transient ??= failure;
      } finally {
        finished.push(key);
      }
    },
    { concurrency },
  ).finally(() => {
    running = false;
  });
  let flushFailure: unknown = null;
  while (running) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, flushIntervalMs)))]);
    clearTimeout(timer);
    if (!running || finished.length === 0 || flushFailure) continue;
    await commit(finished.splice(0)).catch((error: unknown) => {
      flushFailure = error; // the rest waits for the retry
    });
  }
  await work;
  if (flushFailure) throw asError(flushFailure);
  await commit(finished.splice(0));
  if (transient !== undefined) throw asError(transient);
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
