import { DomainError, isUnauthenticatedTrigger, observe, type Activity, type RecoveryPolicy } from '@settle/domain';
import type { BatchItem, TypedEvent } from '@settle/messaging';
import { inTransaction, traceCarrierOf, type Pool } from '@settle/platform';
import { REQUESTED_BY } from './due-sweep.js';
import { PartitionFencedError, type PartitionOwnership } from './partition-fencing.js';
import type { StoredWatch, WatchStore } from './watch.store.js';

/**
 * Maps a message to the activity it stands for, or `null` when it is not activity. A request of
 * an unauthenticated trigger (a spoofed webhook) and an unchanged answer to it are not activity
 * (`isUnauthenticatedTrigger`): anybody could otherwise hold the sweeper's schedule back.
 */
export function activityOf(event: TypedEvent): { activity: Activity; correlationId: string } | null {
  const at = event.payload.occurred_at;
  const correlationId = event.payload.correlation_id;
  switch (event.type) {
    case 'CheckoutRegistered':
      return { activity: { kind: 'registered', at }, correlationId };
    case 'CheckoutCompleted':
      return { activity: { kind: 'completed', at }, correlationId };
    case 'ProviderWebhookReceived':
      return { activity: { kind: 'webhook_received', at }, correlationId };
    case 'VerificationRequested':
      if (isUnauthenticatedTrigger(event.payload.trigger)) return null;
      return { activity: { kind: 'verification_requested', at, bySweeper: event.payload.requested_by === REQUESTED_BY }, correlationId };
    case 'ConsensusResult': {
      const status = event.payload.state_after;
      const changed = event.payload.state_before !== status;
      if (!changed && isUnauthenticatedTrigger(event.payload.trigger)) return null;
      return { activity: { kind: 'outcome', at, status, changed }, correlationId };
    }
    case 'UnmatchedPaymentObserved': {
      // A final answer (recorded, declined, closed) ends the candidate's checks; `matched` follows
      // a registration, which the watch already saw.
      const resolved = event.payload.observation !== 'unresolved';
      return event.payload.observation === 'matched' ? null : { activity: { kind: 'unmatched_observed', at, resolved }, correlationId };
    }
    default:
      return null;
  }
}

/** What folding activity needs. */
export interface ActivityIntakeDeps {
  pool: Pool;
  store: WatchStore;
  policy: RecoveryPolicy;
}

/**
 * Folds batches of activity into their partitions' watches (`observe`), in one transaction
 * fenced by the epochs of every partition they come from: one partition's batch, or the
 * batches of one fetch merged (group commit across partitions). Waits for the latest claim
 * first.
 *
 * @returns `rejected`: items that can never be applied (a DomainError of `observe`, such as an
 *   activity time that is not a number), and the items of every partition this instance does not
 *   (or no longer) own, each with a PartitionFencedError; the other partitions' items are
 *   committed. `earliestDueAt`: the earliest due time of the watches it wrote, epoch ms (`null`
 *   when none is armed), for the sweep timer.
 * @throws PartitionFencedError when it owns none of them.
 */
export async function applyActivity(
  deps: ActivityIntakeDeps,
  ownership: PartitionOwnership,
  items: readonly BatchItem[],
): Promise<{ rejected: Array<{ index: number; error: unknown }>; earliestDueAt: number | null }> {
  await ownership.settled();
  const partitions = [...new Set(items.map((item) => item.context.partition))].sort((a, b) => a - b);
  const claims = ownership.claimList(partitions);
  const seen = items.map((item) => ({ item, found: activityOf(item.event) }));
  if (!seen.some((s) => s.found)) return { rejected: [], earliestDueAt: null };
  if (claims.length === 0) throw new PartitionFencedError(partitions[0]!);
  const { held, rejected, earliestDueAt } = await inTransaction(deps.pool, async (client) => {
    const held = new Set(await deps.store.fence(client, claims));
    ownership.dropFenced(claims, [...held]);
    if (held.size === 0) throw new PartitionFencedError(partitions[0]!);
    const mine = seen.filter((s) => held.has(s.item.context.partition));
    const references = [...new Set(mine.filter((s) => s.found).map((s) => s.item.event.payload.reference))];
    const stored = await deps.store.lock(client, references);
    const changed = new Map<string, StoredWatch>();
    const rejected: Array<{ index: number; error: unknown }> = [];
    for (const [index, { item, found }] of seen.entries()) {
      if (!found || !held.has(item.context.partition)) continue;
      const reference = item.event.payload.reference;
      const current = changed.get(reference) ?? stored.get(reference) ?? null;
      try {
        const watch = observe(current?.watch ?? null, reference, found.activity, deps.policy);
        changed.set(reference, {
          watch,
          partition: item.context.partition,
          correlationId: current?.correlationId ?? found.correlationId,
          // The latest message's trace: a request fired later links to it.
          trace: traceCarrierOf(item.context.trace) ?? current?.trace,
        });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        rejected.push({ index, error });
      }
    }
    await deps.store.save(client, [...changed.values()]);
    let earliestDueAt: number | null = null;
    for (const { watch } of changed.values()) {
      if (watch.dueAt !== null && (earliestDueAt === null || watch.dueAt < earliestDueAt)) earliestDueAt = watch.dueAt;
    }
    return { held, rejected, earliestDueAt };
  });
  for (const [index, { item }] of seen.entries()) {
    if (!held.has(item.context.partition)) rejected.push({ index, error: new PartitionFencedError(item.context.partition) });
  }
  return { rejected, earliestDueAt };
}
