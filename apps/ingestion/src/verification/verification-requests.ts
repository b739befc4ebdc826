import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { IngestionConfig } from '@settle/config';
import {
  decideVerificationRequest,
  DEFAULT_COALESCING_POLICY,
  isCoalescedTrigger,
  type CoalescingPolicy,
  type CoalescingReason,
  type VerificationTrigger,
} from '@settle/domain';
import { readReadModel, ReadModelNotReadyError } from '@settle/ledger';
import { Outbox, OUTBOX_COLUMNS, type OutboxRelay } from '@settle/messaging';
import { inTransaction, type Pool, type PoolClient } from '@settle/platform';
import { CONFIG, METRICS, OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';
import type { IngestionMetrics } from '../webhooks/webhook.metrics.js';

/** One verification asked for. */
export interface VerificationRequestInput {
  reference: string;
  trigger: VerificationTrigger;
  /** `requested_by` of the message (`ingestion`). */
  requestedBy: string;
  /** The event id the request gets when it is published (its result carries it as causation id). */
  requestId: string;
  now: Date;
  /**
   * For a rejected webhook: its provider and body digest, recorded in the webhook inbox with the
   * request (`signature_valid = false`), so the same body never asks twice.
   */
  rejectedBody?: { provider: string; dedupeKey: string };
}

/**
 * What became of a verification request:
 * - `requested`: published (enqueued in the outbox) as `requestId`;
 * - `coalesced`, `pending`: the previous request of the trigger, `requestId` (published at
 *   `requestedAt`, epoch ms), is still unanswered; its result answers this one too;
 * - `coalesced`, `recent`: a provider answer decided at `answeredAt` (epoch ms) is younger than
 *   the window;
 * - `duplicate`: a rejected webhook whose body already asked once (nothing published).
 */
export type VerificationRequestOutcome =
  | { kind: 'requested'; requestId: string }
  | { kind: 'coalesced'; reason: 'pending'; requestId: string; requestedAt: number }
  | { kind: 'coalesced'; reason: 'recent'; answeredAt: number }
  | { kind: 'duplicate' };

/** Trigger and reference pairs whose hold one instance remembers (least recently used ones are forgotten first). */
const HELD_REFERENCES = 10_000;

interface Known {
  correlation_id: string;
  request_id: string | null;
  requested_at: Date | null;
  decided_at: Date | null;
}

/**
 * Publishes `VerificationRequested` for ingestion's triggers (a rejected webhook, `/verify`,
 * `/attempts`, a manual reconciliation), coalescing per reference the triggers anybody can
 * repeat (`decideVerificationRequest` of @settle/domain; docs/webhooks.md, "Spoofed webhooks and
 * repeated verifications"), so that a flood of them cannot multiply provider queries.
 *
 * Each request is one PostgreSQL transaction: the checkout's row is locked (`FOR NO KEY UPDATE`,
 * so concurrent requests for one reference, from any ingestion instance, decide one after the
 * other), the latest request of the trigger (`ingestion.verification_requests`) and the latest
 * provider answer (`read_model.latest_verification.decided_at`) are read in the next statement,
 * and, when the rule says so, the request's marker and its outbox row are written in one more
 * statement before the commit. The rule therefore holds across instances and restarts. Each
 * instance also remembers how long the rule will certainly keep coalescing a reference's trigger
 * (`remember`), and answers those requests without the database: a flood costs one transaction
 * per instance and window.
 *
 * Before the ledger projector first created `read_model`, no answer is known: only the pending
 * rule applies.
 */
@Injectable()
export class VerificationRequests {
  private readonly policy: CoalescingPolicy;
  /** Per trigger and reference: until when (epoch ms) the rule certainly coalesces, and with what (see `remember`). */
  private readonly holds = new LRUCache<string, { until: number; outcome: VerificationRequestOutcome }>({ max: HELD_REFERENCES });

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
    @Inject(METRICS) private readonly metrics: IngestionMetrics,
    @Inject(CONFIG) config: Pick<IngestionConfig, 'verification'>,
  ) {
    this.policy = { ...DEFAULT_COALESCING_POLICY, windowMs: config.verification.coalesceWindowMs };
  }

  /**
   * Asks for a verification of a registered checkout, unless the rule coalesces it.
   *
   * @returns the outcome, or `null` when no checkout is registered under the reference.
   * @throws database errors (nothing was published).
   */
  async request(input: VerificationRequestInput): Promise<VerificationRequestOutcome | null> {
    const key = `${input.trigger}\u0000${input.reference}`;
    const hold = this.holds.get(key);
    if (hold && input.now.getTime() < hold.until) {
      this.count(input.trigger, hold.outcome);
      return hold.outcome;
    }
    let outcome: VerificationRequestOutcome | null;
    try {
      outcome = await inTransaction(this.pool, (client) => this.decide(client, input, true));
    } catch (error) {
      if (!(error instanceof ReadModelNotReadyError)) throw error;
      outcome = await inTransaction(this.pool, (client) => this.decide(client, input, false));
    }
    if (outcome) this.count(input.trigger, outcome);
    if (outcome?.kind === 'requested') this.relay.wake();
    this.remember(key, input, outcome);
    return outcome;
  }

  /**
   * As {@link request}, in the caller's transaction (a batch of the checkout commands topic): the
   * same rule and the same writes, without this instance's memory of holds (PostgreSQL decides
   * every one); the caller wakes the relay after its commit when the outcome is `requested`, and
   * counts the outcome then ({@link count}), so a transaction retried is counted once.
   *
   * @param answersReadable - `read_model` exists (the ledger projector has booted on this
   *   database); when it does not, only the pending rule applies, as in {@link request}.
   * @returns the outcome, or `null` when no checkout is registered under the reference.
   */
  async requestIn(client: PoolClient, input: VerificationRequestInput, answersReadable: boolean): Promise<VerificationRequestOutcome | null> {
    return this.decide(client, input, answersReadable);
  }

  /**
   * Keeps, in this instance's memory, how long the rule will certainly go on coalescing requests
   * of the trigger for the reference after this outcome, so a flood costs one transaction per
   * instance and window instead of one per request. Only a lower bound of what PostgreSQL would
   * decide is kept: after a request published (or still pending) at `t`, any answer comes at or
   * after `t`, so nothing goes out before `t + min(window, pending limit)`; after a recent answer
   * at `a`, nothing before `a + window`. The memory changes no outcome, and losing it (a restart)
   * changes nothing either: PostgreSQL decides again.
   */
  private remember(key: string, input: VerificationRequestInput, outcome: VerificationRequestOutcome | null): void {
    if (!outcome || !isCoalescedTrigger(input.trigger)) return;
    const hold = Math.min(this.policy.windowMs, this.policy.pendingLimitMs);
    switch (outcome.kind) {
      case 'requested':
        this.holds.set(key, {
          until: input.now.getTime() + hold,
          outcome: { kind: 'coalesced', reason: 'pending', requestId: outcome.requestId, requestedAt: input.now.getTime() },
        });
        return;
      case 'coalesced':
        this.holds.set(key, { until: outcome.reason === 'pending' ? outcome.requestedAt + hold : outcome.answeredAt + this.policy.windowMs, outcome });
        return;
      case 'duplicate':
        return;
    }
  }

  private async decide(client: PoolClient, input: VerificationRequestInput, withAnswers: boolean): Promise<VerificationRequestOutcome | null> {
    const known = await this.known(client, input, withAnswers);
    if (!known) return null;
    const decision = decideVerificationRequest(
      {
        trigger: input.trigger,
        previous: known.request_id !== null && known.requested_at !== null ? { requestId: known.request_id, requestedAt: known.requested_at.getTime() } : null,
        lastAnsweredAt: known.decided_at?.getTime() ?? null,
        now: input.now.getTime(),
      },
      this.policy,
    );
    switch (decision.kind) {
      case 'coalesce':
        return decision.reason === 'pending'
          ? { kind: 'coalesced', reason: 'pending', requestId: decision.requestId, requestedAt: decision.requestedAt }
          : { kind: 'coalesced', reason: 'recent', answeredAt: decision.answeredAt };
      case 'request':
        return (await this.publish(client, input, known.correlation_id)) ? { kind: 'requested', requestId: input.requestId } : { kind: 'duplicate' };
    }
  }

  /**
   * The checkout (locked), then the trigger's latest request and the latest answer; `null` for
   * an unknown reference. Two statements on purpose: a statement that waited for the lock still
   * reads the other tables as of its start, so the marker is read by a statement that starts
   * once the lock is held (and sees what the previous holder committed).
   */
  private async known(client: PoolClient, input: VerificationRequestInput, withAnswers: boolean): Promise<Known | null> {
    const locked = await client.query<{ correlation_id: string }>('SELECT correlation_id FROM ingestion.checkouts WHERE reference = $1 FOR NO KEY UPDATE', [
      input.reference,
    ]);
    const checkout = locked.rows[0];
    if (!checkout) return null;
    const answers = withAnswers ? '(SELECT decided_at FROM read_model.latest_verification WHERE reference = $1)' : 'NULL::timestamptz';
    const { rows } = await readReadModel(() =>
      client.query<Omit<Known, 'correlation_id'>>(
        `SELECT m.request_id, m.requested_at, ${answers} AS decided_at
           FROM (SELECT 1) one
           LEFT JOIN ingestion.verification_requests m ON m.reference = $1 AND m.trigger = $2`,
        [input.reference, input.trigger],
      ),
    );
    const latest = rows[0];
    return {
      correlation_id: checkout.correlation_id,
      request_id: latest?.request_id ?? null,
      requested_at: latest?.requested_at ?? null,
      decided_at: latest?.decided_at ?? null,
    };
  }

  /**
   * Writes the request's marker and its outbox row (and, for a rejected webhook, its inbox row)
   * in one statement.
   *
   * @returns `false` when the rejected body was already recorded (nothing written).
   */
  private async publish(client: PoolClient, input: VerificationRequestInput, correlationId: string): Promise<boolean> {
    const row = await this.outbox.prepare({
      type: 'VerificationRequested',
      payload: {
        event_id: input.requestId,
        occurred_at: input.now.getTime(),
        correlation_id: correlationId,
        reference: input.reference,
        trigger: input.trigger,
        requested_by: input.requestedBy,
      },
    });
    const { rowCount } = await client.query(
      `WITH inbox AS (
         INSERT INTO ingestion.webhook_inbox (provider, dedupe_key, reference, signature_valid)
         SELECT $5::text, $6::text, $1, false WHERE $6::text IS NOT NULL
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), go AS (
         SELECT 1 WHERE $6::text IS NULL OR EXISTS (SELECT 1 FROM inbox)
       ), marker AS (
         INSERT INTO ingestion.verification_requests (reference, trigger, request_id, requested_at)
         SELECT $1, $2, $3, $4 FROM go
         ON CONFLICT (reference, trigger) DO UPDATE SET request_id = EXCLUDED.request_id, requested_at = EXCLUDED.requested_at
         RETURNING 1
       )
       INSERT INTO ${this.outbox.table} ${OUTBOX_COLUMNS}
       SELECT $7, $8, $9, $10::jsonb, $11, $12, $13, $14 FROM go
       RETURNING 1`,
      [
        input.reference,
        input.trigger,
        input.requestId,
        input.now,
        input.rejectedBody?.provider ?? null,
        input.rejectedBody?.dedupeKey ?? null,
        row.topic,
        row.key,
        row.type,
        row.payload,
        row.correlationId,
        row.causationId,
        row.traceparent,
        row.tracestate,
      ],
    );
    return rowCount === 1;
  }

  /** Counts an outcome in `settle_verification_requests_total`. */
  count(trigger: VerificationTrigger, outcome: VerificationRequestOutcome): void {
    const reason: CoalescingReason | '' = outcome.kind === 'coalesced' ? outcome.reason : '';
    this.metrics.verificationRequests.inc({ trigger, outcome: outcome.kind, reason });
  }
}
