import type { Logger } from '@settle/platform';

/** One step of a worker's shutdown. */
export interface StopStep {
  /** What stops, for the log line when it fails (for example `consumer settle-verifier`). */
  name: string;
  stop(): Promise<void> | void;
}

/**
 * Runs the steps one after the other, in the order given, each once the previous one settled.
 * A step that fails is logged and the next one still runs, so a metrics server that fails to
 * close never leaves the producer connected or the pool open.
 *
 * @throws the first step's error, once every step ran.
 */
export async function stopInOrder(steps: readonly StopStep[], logger: Logger): Promise<void> {
  let first: { error: unknown } | null = null;
  for (const step of steps) {
    try {
      await step.stop();
    } catch (error) {
      logger.error({ err: error, step: step.name }, 'shutdown step failed; continuing with the next');
      first ??= { error };
    }
  }
  if (first) throw first.error;
}
