import type { Completion, LeasedEvent } from './store.port.js';

/** The two steps around one event's work, for a store without transactions. */
export interface CompletionSteps {
  /** Whether the claim still holds the event (its token is the event's); may apply what an older kit left to do. */
  held(lease: LeasedEvent): Promise<boolean>;
  /** Marks the event processed if the claim still holds it; `false` when it no longer does. */
  markProcessed(lease: LeasedEvent): Promise<boolean>;
}

/**
 * `ReceiverStore.completeBatch` for the stores without transactions (in-memory, Redis):
 * event after event, in order, each checked against its claim before its work runs and again when
 * it is marked processed. A work that throws fails its event alone.
 *
 * @returns one {@link Completion} per lease, in order.
 * @throws a storage error of `steps` (the events not yet completed stay `processing`).
 */
export async function completeEach(
  leases: readonly LeasedEvent[],
  work: (lease: LeasedEvent, tx: undefined) => Promise<void>,
  steps: CompletionSteps,
): Promise<Completion[]> {
  const completions: Completion[] = [];
  for (const lease of leases) {
    if (!(await steps.held(lease))) {
      completions.push({ outcome: 'lost' });
      continue;
    }
    try {
      await work(lease, undefined);
    } catch (error) {
      completions.push({ outcome: 'failed', error });
      continue;
    }
    completions.push({ outcome: (await steps.markProcessed(lease)) ? 'processed' : 'lost' });
  }
  return completions;
}
