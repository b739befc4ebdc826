import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { isTerminal, TRANSACTION_STATUSES } from '@settle/domain';
import { Outbox, type OutboxRelay } from '@settle/messaging';
import { inTransaction, type Logger, type Pool, type PoolClient } from '@settle/platform';
import { LOGGER, METRICS, OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';
import type { IngestionMetrics } from '../webhooks/webhook.metrics.js';
import { readModelExists } from './read-model-ready.js';
import { verifiedResult } from './command-results.js';

/** A `VerifyCheckout` command waiting for its verification's outcome. */
export interface VerificationWaiter {
  /** The command's `event_id`: its results' causation id. */
  causationId: string;
  reference: string;
  /** The command's `correlation_id`, echoed. */
  correlationId: string;
  /** The verification request whose result answers it (its own, or the pending one it shares). */
  requestId: string;
  coalesced: boolean;
  /** When it is answered `pending` if nothing came. */
  waitUntil: Date;
}

/** How often the waiters are checked while there are any, milliseconds. */
export const WAITER_POLL_MS = 200;
/** Longest pause after failed passes (the database away), milliseconds. */
export const WAITER_RETRY_MAX_MS = 5_000;
/**
 * How often each instance looks for waiters nobody is checking (their instance went away for
 * good), milliseconds: one cheap query while there are none.
 */
export const WAITER_BACKSTOP_MS = 10_000;
/** Waiters answered per transaction. */
const WAITERS_PER_PASS = 500;

const TERMINAL_STATES = TRANSACTION_STATUSES.filter((s) => isTerminal(s));

/**
 * The second answer of a `VerifyCheckout` command: once the read model reflects the result of
 * the verification request it waits for, or the checkout turned terminal through another
 * trigger meanwhile (the verifier asks no provider about a terminal checkout), it is answered
 * `verified` with `completed`; at its `wait_until`, with `pending`: exactly the conditions under
 * which `POST /v1/checkouts/{reference}/verify` stops waiting (`CheckoutRepository.awaitResult`).
 *
 * Waiters are rows of `ingestion.verification_waiters`, written in the batch's transaction with
 * its first answer, and answered (row deleted, result in the outbox) in one transaction per pass,
 * `FOR UPDATE SKIP LOCKED`, so several ingestion instances share them and a restart loses none.
 * The check runs every {@link WAITER_POLL_MS} only while waiters exist, and otherwise once every
 * {@link WAITER_BACKSTOP_MS} one query for any waiter (those of an instance that went away); a failed pass is
 * retried with a doubling pause, at most {@link WAITER_RETRY_MAX_MS}.
 */
@Injectable()
export class VerificationWaiters implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private backstop: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** A wake came while a pass ran: pass again after it, whatever it found. */
  private again = false;
  /** Passes failed in a row: the next waits longer (at most {@link WAITER_RETRY_MAX_MS}). */
  private failures = 0;
  private stopped = false;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) private readonly metrics: IngestionMetrics,
  ) {}

  /** Stores a waiter in the caller's transaction; the caller wakes this after its commit. */
  async add(client: PoolClient, waiter: VerificationWaiter): Promise<void> {
    await client.query(
      `INSERT INTO ingestion.verification_waiters (causation_id, reference, correlation_id, request_id, coalesced, wait_until)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (causation_id) DO NOTHING`,
      [waiter.causationId, waiter.reference, waiter.correlationId, waiter.requestId, waiter.coalesced, waiter.waitUntil],
    );
  }

  /** Starts checking; while a pass runs, one more follows it. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    const delay = this.failures === 0 ? WAITER_POLL_MS : Math.min(WAITER_POLL_MS * 2 ** this.failures, WAITER_RETRY_MAX_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.again = false;
      this.running = this.pass()
        .then((more) => {
          this.failures = 0;
          return more;
        })
        .catch((error: unknown) => {
          this.failures++;
          this.logger.warn({ err: error, failures: this.failures }, 'verification waiters: pass failed; retrying');
          return true;
        })
        .then((more) => {
          this.running = null;
          if (more || this.again) this.wake();
        });
    }, delay);
  }

  /**
   * Waiters left by an earlier run (a restart) are answered at boot; those of an instance that
   * went away for good are found by the backstop, every {@link WAITER_BACKSTOP_MS}.
   */
  onApplicationBootstrap(): void {
    this.wake();
    // One indexed query while there is nothing to answer, instead of a pass's transaction.
    this.backstop = setInterval(
      () =>
        void this.waiting().then(
          (any) => any && this.wake(),
          () => this.wake(),
        ),
      WAITER_BACKSTOP_MS,
    );
    this.backstop.unref();
  }

  /** Whether any waiter is stored (answered by the index on `wait_until`). */
  private async waiting(): Promise<boolean> {
    const { rows } = await this.pool.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM ingestion.verification_waiters) AS any');
    return rows[0]?.any === true;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.backstop) clearInterval(this.backstop);
    this.timer = null;
    this.backstop = null;
    await this.running?.catch(() => undefined);
  }

  /**
   * Answers the waiters whose outcome is known or whose wait ran out.
   *
   * @returns whether any waiter is left.
   */
  async pass(now: Date = new Date()): Promise<boolean> {
    const { answered, left } = await inTransaction(this.pool, async (client) => {
      const readModel = await readModelExists(client);
      const due = await client.query<{
        causation_id: string;
        reference: string;
        correlation_id: string;
        coalesced: boolean;
        answered: boolean;
        state: string | null;
        entitlement_status: string | null;
        verdict: string | null;
      }>(
        readModel
          ? `SELECT w.causation_id, w.reference, w.correlation_id, w.coalesced,
                    (v.causation_id = w.request_id OR t.state = ANY($2::text[])) IS TRUE AS answered,
                    t.state, t.entitlement_status, COALESCE(v.verdict, t.last_verdict) AS verdict
               FROM ingestion.verification_waiters w
               LEFT JOIN read_model.transaction_status t ON t.reference = w.reference
               LEFT JOIN read_model.latest_verification v ON v.reference = w.reference
              WHERE v.causation_id = w.request_id OR t.state = ANY($2::text[]) OR w.wait_until <= $1
              ORDER BY w.wait_until
              LIMIT ${WAITERS_PER_PASS}
              FOR UPDATE OF w SKIP LOCKED`
          : `SELECT w.causation_id, w.reference, w.correlation_id, w.coalesced, false AS answered,
                    NULL::text AS state, NULL::text AS entitlement_status, NULL::text AS verdict
               FROM ingestion.verification_waiters w
              WHERE w.wait_until <= $1
              ORDER BY w.wait_until
              LIMIT ${WAITERS_PER_PASS}
              FOR UPDATE OF w SKIP LOCKED`,
        readModel ? [now, TERMINAL_STATES] : [now],
      );
      if (due.rows.length > 0) {
        await this.outbox.enqueue(
          client,
          due.rows.map((w) => ({
            type: 'CheckoutCommandResult' as const,
            payload: verifiedResult(
              { event_id: w.causation_id, correlation_id: w.correlation_id, reference: w.reference },
              { state: w.state ?? 'PENDING', entitlementStatus: w.entitlement_status ?? 'LOCKED' },
              { verification: w.answered ? 'completed' : 'pending', verdict: w.answered ? w.verdict : null, coalesced: w.coalesced },
              now,
            ),
          })),
        );
        await client.query('DELETE FROM ingestion.verification_waiters WHERE causation_id = ANY($1::text[])', [due.rows.map((w) => w.causation_id)]);
      }
      const rest = await client.query<{ left: boolean }>('SELECT EXISTS (SELECT 1 FROM ingestion.verification_waiters) AS left');
      return { answered: due.rows, left: rest.rows[0]?.left === true };
    });
    if (answered.length > 0) this.relay.wake();
    if (answered.length > 0) this.metrics.checkoutCommands.inc({ command: 'VerifyCheckout', outcome: 'verified', code: '' }, answered.length);
    return left;
  }
}
