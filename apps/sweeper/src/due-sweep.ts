import { fire, type RecoveryPolicy } from '@settle/domain';
import type { Outbox, OutboxRelay, VerificationRequestedV1 } from '@settle/messaging';
import {
  deterministicId,
  endSpan,
  inTransaction,
  linksTo,
  ROOT_CONTEXT,
  SETTLE_SPAN_ATTRIBUTES,
  startSpan,
  traceCarrierOf,
  type Logger,
  type Pool,
  type Span,
} from '@settle/platform';
import type { PartitionOwnership } from './partition-fencing.js';
import type { SweeperMetrics } from './sweeper.metrics.js';
import type { StoredWatch, WatchStore } from './watch.store.js';

/** `requested_by` of the sweeper's own verification requests. */
export const REQUESTED_BY = 'sweeper';

/** The tracer of the sweeper's own spans. */
const SWEEPER_TRACER = '@settle/sweeper';

/** What a sweep needs. */
export interface DueSweepDeps {
  pool: Pool;
  store: WatchStore;
  outbox: Outbox;
  relay: Pick<OutboxRelay, 'wake'>;
  policy: RecoveryPolicy;
  /** Most watches fired per sweep. */
  batchSize: number;
  logger: Logger;
  metrics: SweeperMetrics;
}

/** Result of one sweep. */
export interface SweepResult {
  /** Verification requests written to the outbox. */
  published: number;
  /** Largest delay between a watch falling due and its request, milliseconds. */
  maxLagMs: number;
}

/**
 * One sweep at `now` (epoch ms): for the owned partitions, fires up to `batchSize` due watches
 * (`fire`), writing their `VerificationRequested` messages to the outbox and the re-armed
 * watches in one transaction fenced by the partitions' epochs, so a request is published if
 * and only if its re-arm committed. Counts the requests and their detection lag once
 * committed, and wakes the outbox relay when it wrote any.
 *
 * Each request starts a new trace (docs/observability.md, "Traces"): a span `sweeper request`
 * linked to the last trace that touched the transaction (the watch's), whose context the
 * request's outbox row stores, so the verification it causes is a trace of its own, found from
 * the checkout's by the link or by `settle.reference`.
 */
export async function sweepDue(deps: DueSweepDeps, ownership: PartitionOwnership, now: number): Promise<SweepResult> {
  const claims = ownership.claimList();
  if (claims.length === 0) return { published: 0, maxLagMs: 0 };
  // The requests' spans, ended once their transaction committed (or failed).
  const spans: Span[] = [];
  const result = await inTransaction(deps.pool, async (client) => {
    const held = await deps.store.fence(client, claims);
    ownership.dropFenced(claims, held);
    const due = await deps.store.lockDue(client, held, now, deps.batchSize);
    if (due.length === 0) return { published: 0, maxLagMs: 0, messages: [] };
    const fired: StoredWatch[] = [];
    const messages = [];
    let maxLagMs = 0;
    for (const stored of due) {
      const { request, watch } = fire(stored.watch, now, deps.policy);
      fired.push({ ...stored, watch });
      maxLagMs = Math.max(maxLagMs, now - request.dueAt);
      const payload: VerificationRequestedV1 = {
        // The same watch, due time and check give the same id: a re-sent request is
        // de-duplicated downstream.
        event_id: deterministicId('VerificationRequested', REQUESTED_BY, watch.reference, request.dueAt, request.check),
        occurred_at: now,
        correlation_id: stored.correlationId ?? watch.reference,
        reference: watch.reference,
        trigger: request.trigger,
        requested_by: REQUESTED_BY,
      };
      const { span, context } = startSpan(SWEEPER_TRACER, 'sweeper request', {
        parent: ROOT_CONTEXT,
        links: linksTo(stored.trace),
        attributes: { [SETTLE_SPAN_ATTRIBUTES.reference]: watch.reference, [SETTLE_SPAN_ATTRIBUTES.trigger]: request.trigger },
      });
      spans.push(span);
      messages.push({ type: 'VerificationRequested' as const, payload, dueAt: request.dueAt, trace: traceCarrierOf(context) });
      const fields = {
        reference: watch.reference,
        correlationId: payload.correlation_id,
        trigger: request.trigger,
        check: request.check,
        lagMs: now - request.dueAt,
        nextDueAt: watch.dueAt,
      };
      if (request.final) deps.logger.warn(fields, 're-check limit reached: final verification requested; unresolved means manual review');
      else deps.logger.debug(fields, 'transaction due; verification requested');
    }
    await deps.outbox.enqueue(client, messages);
    await deps.store.save(client, fired);
    return { published: due.length, maxLagMs, messages };
  }).catch((error: unknown) => {
    for (const span of spans) endSpan(span, error);
    throw error;
  });
  for (const span of spans) endSpan(span);
  // Counted once committed: a rolled-back sweep requested nothing.
  for (const m of result.messages ?? []) {
    deps.metrics.requests.inc({ trigger: m.payload.trigger });
    deps.metrics.detectionLag.observe(now - m.dueAt);
  }
  if (result.published > 0) deps.relay.wake();
  return { published: result.published, maxLagMs: result.maxLagMs };
}
