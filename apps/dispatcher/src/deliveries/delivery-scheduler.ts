import { setTimeout as sleep } from 'node:timers/promises';
import { classifyAttempt, disableReason, nextAttemptAt, type AttemptResult, type RetryPolicy } from '@settle/domain';
import type { OutboxMessage, OutboxRelay } from '@settle/messaging';
import { deterministicId, type Logger } from '@settle/platform';
import type { DispatcherMetrics } from '../dispatcher.metrics.js';
import type { EndpointSecrets } from '../endpoints/endpoint-secrets.js';
import { redactedUrl } from '../endpoints/url-policy.js';
import type { AttemptReport, AttemptRequest } from './delivery-sender.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryRepository, EndpointHealthChange } from './delivery.repository.js';

/** Limits and timings of the scheduler. */
export interface SchedulerOptions {
  /** Attempts in flight at once in this instance. */
  maxInFlight: number;
  /** Attempts in flight at once to one endpoint: what a slow or blackholed endpoint can hold, at most. */
  maxInFlightPerEndpoint: number;
  /** How long a claimed delivery is held before another claim may take it, milliseconds (longer than an attempt's time-out). */
  leaseMs: number;
  /** Longest sleep while nothing is known to be due, milliseconds, after a claim that took deliveries. */
  pollIntervalMs: number;
  /**
   * Longest sleep of an idle scheduler, milliseconds (default `pollIntervalMs`: no back-off):
   * each claim that took nothing doubles the sleep from `pollIntervalMs` up to this. Deliveries
   * this instance records wake it, and the next due time read before each sleep bounds it, so
   * the back-off delays only deliveries another instance recorded and could not attempt.
   */
  idlePollMaxMs?: number;
  /** Results written together, at most; and the longest wait before they are written, milliseconds. */
  flushBatch: number;
  flushDelayMs: number;
  /**
   * How long a delivery waits when Settle could not sign it (the endpoint's secret unreadable:
   * the vault or the database unavailable, a master key missing), milliseconds (default 30 000).
   * No request is sent and no attempt counted: it is Settle's fault, not the endpoint's.
   */
  signingRetryMs?: number;
  retry: RetryPolicy;
  /** An endpoint failing every attempt this long is disabled, milliseconds. */
  disableAfterMs: number;
}

/** What the scheduler works with. */
export interface SchedulerDeps {
  repository: Pick<DeliveryRepository, 'claimDue' | 'recordResults' | 'nextDueAt' | 'postpone'>;
  sender: { attempt(request: AttemptRequest): Promise<AttemptReport> };
  secrets: Pick<EndpointSecrets, 'signersOf'>;
  relay: Pick<OutboxRelay, 'wake'>;
  metrics: DispatcherMetrics;
  logger: Logger;
  options: SchedulerOptions;
  /** epoch ms; injected for tests. */
  clock?: () => number;
  /** [0, 1); draws the retry jitter. */
  random?: () => number;
}

/**
 * Shortest time between two claims, milliseconds: slots freed by attempts that end close
 * together are refilled by one query, not one query each.
 */
const CLAIM_INTERVAL_MS = 5;

function errorOf(result: AttemptResult): string {
  switch (result.kind) {
    case 'answered':
      return `HTTP_${result.status}`;
    case 'timeout':
      return 'TIMEOUT';
    case 'connection_error':
      return `CONNECTION.${result.code}`;
  }
}

/**
 * Delivers pending entitlement events to customer endpoints, isolating endpoints from each
 * other (docs/delivery.md, "Isolation"): pending deliveries live in PostgreSQL with their due
 * time, never in a blocked Kafka consumer; the scheduler claims due ones with at most
 * `maxInFlightPerEndpoint` attempts in flight per endpoint, so a slow, failing or blackholed
 * endpoint holds only its own slots while the others are served. Each attempt's result is
 * decided by the pure rules of `@settle/domain` (outcome, retry schedule, endpoint health) and
 * written with the others that ended at about the same time in one transaction.
 *
 * The loop wakes when new deliveries are recorded, when an attempt ends that held a slot a
 * claim lacked (its endpoint's last, or this instance's last), and at the earliest due time (at
 * most every `pollIntervalMs`, backing off to `idlePollMaxMs` while claims find nothing: an idle
 * dispatcher reads the table every 30 s, not every second). A claim that took fewer deliveries
 * than it had room for is not repeated at once: it took every due one.
 */
export class DeliveryScheduler {
  private readonly perEndpoint = new Map<string, number>();
  private readonly attemptsInFlight = new Set<Promise<void>>();
  private pending: AttemptRecord[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private running = false;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** The sleep while nothing is known to be due, milliseconds: `pollIntervalMs`, doubled by each claim that took nothing. */
  private pollWaitMs: number;
  /** The longest such sleep, milliseconds: `idlePollMaxMs`, at least `pollIntervalMs`. */
  private readonly idlePollMaxMs: number;
  /** When the loop's current sleep ends, epoch ms (`Infinity` while it is not asleep). */
  private sleepsUntil = Infinity;
  private readonly clock: () => number;
  private readonly random: () => number;

  constructor(private readonly deps: SchedulerDeps) {
    this.clock = deps.clock ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.pollWaitMs = deps.options.pollIntervalMs;
    this.idlePollMaxMs = Math.max(deps.options.pollIntervalMs, deps.options.idlePollMaxMs ?? deps.options.pollIntervalMs);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Asks for a claim pass now (new deliveries were recorded, or an admin requeued some). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming, lets the attempts in flight end, and writes their results. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.attemptsInFlight]);
    await this.flush();
  }

  private get inFlight(): number {
    return this.attemptsInFlight.size;
  }

  /** Attempts in flight now, in all and per endpoint (for tests and metrics). */
  load(): { inFlight: number; perEndpoint: ReadonlyMap<string, number> } {
    return { inFlight: this.inFlight, perEndpoint: this.perEndpoint };
  }

  private async run(): Promise<void> {
    let failures = 0;
    let lastClaim = 0;
    while (this.running) {
      const gap = lastClaim + CLAIM_INTERVAL_MS - Date.now();
      if (gap > 0) await sleep(gap);
      lastClaim = Date.now();
      this.woken = false;
      let filled = false;
      try {
        const claimed = await this.claim();
        filled = claimed.filled;
        failures = 0;
        // Idle (the claim had room and took nothing): the poll backs off; work brings it back.
        this.pollWaitMs = claimed.idle ? Math.min(this.idlePollMaxMs, this.pollWaitMs * 2) : this.deps.options.pollIntervalMs;
      } catch (error) {
        failures += 1;
        this.deps.logger.warn({ err: error, failures }, 'claiming due deliveries failed; retrying');
        await sleep(Math.min(5_000, 100 * 2 ** failures));
        continue;
      }
      // A claim that filled its limit may have left due deliveries behind: claim again. One that
      // did not took every due delivery it had room for; what becomes due later is timed by
      // sleepUntilDue, new deliveries wake the loop, and so does a freed slot a claim lacked.
      if (filled && this.inFlight < this.deps.options.maxInFlight) continue;
      await this.sleepUntilDue();
    }
  }

  /**
   * One claim of due deliveries, each launched. `filled`: the claim took as many as it had room
   * for; `idle`: it had room and took none, with no attempt in flight.
   */
  private async claim(): Promise<{ filled: boolean; idle: boolean }> {
    const { maxInFlight, maxInFlightPerEndpoint, leaseMs } = this.deps.options;
    const limit = maxInFlight - this.inFlight;
    if (limit <= 0) return { filled: false, idle: false };
    const free = new Map([...this.perEndpoint].map(([endpoint, n]) => [endpoint, Math.max(0, maxInFlightPerEndpoint - n)]));
    const claims = await this.deps.repository.claimDue({ free, defaultFree: maxInFlightPerEndpoint, limit, leaseMs });
    for (const claim of claims) this.launch(claim);
    return { filled: claims.length >= limit, idle: claims.length === 0 && this.inFlight === 0 };
  }

  private async sleepUntilDue(): Promise<void> {
    if (this.woken || !this.running) return;
    let wait = this.pollWaitMs;
    if (this.inFlight < this.deps.options.maxInFlight) {
      // Endpoints with every slot taken are left out: their backlog would wake the loop at
      // once and for nothing; a slot they free wakes it.
      const saturated = [...this.perEndpoint].filter(([, n]) => n >= this.deps.options.maxInFlightPerEndpoint).map(([endpoint]) => endpoint);
      const due = await this.deps.repository.nextDueAt(saturated).catch(() => null);
      if (due) wait = Math.max(0, Math.min(wait, due.getTime() - this.clock()));
    }
    if (this.woken || wait === 0) return;
    this.sleepsUntil = this.clock() + wait;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeUp = null;
    this.sleepsUntil = Infinity;
  }

  private launch(claim: ClaimedDelivery): void {
    this.perEndpoint.set(claim.endpointId, (this.perEndpoint.get(claim.endpointId) ?? 0) + 1);
    const work = this.attempt(claim)
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, deliveryId: claim.id }, 'delivery attempt failed unexpectedly; its lease will expire and it is retried'),
      )
      .finally(() => {
        const held = this.perEndpoint.get(claim.endpointId) ?? 1;
        // Only a slot a claim lacked (the endpoint's, or this instance's) can make a due
        // delivery claimable now: any other due delivery was claimed or is timed already.
        const lacked = held >= this.deps.options.maxInFlightPerEndpoint || this.inFlight >= this.deps.options.maxInFlight;
        if (held <= 1) this.perEndpoint.delete(claim.endpointId);
        else this.perEndpoint.set(claim.endpointId, held - 1);
        this.attemptsInFlight.delete(work);
        this.deps.metrics.inFlight.set(this.inFlight);
        if (lacked) this.wake();
      });
    this.attemptsInFlight.add(work);
    this.deps.metrics.inFlight.set(this.inFlight);
  }

  private async attempt(claim: ClaimedDelivery): Promise<void> {
    let signers;
    try {
      signers = await this.deps.secrets.signersOf(claim.keys, new Date(this.clock()));
    } catch (error) {
      // Settle cannot sign: nothing is sent and nothing counts against the endpoint. Loudly.
      this.deps.metrics.signingFailures.inc();
      this.deps.logger.error(
        { alert: 'SETTLE_DELIVERY_SIGNING_FAILED', err: error, endpointId: claim.endpointId, deliveryId: claim.id },
        'endpoint secret unavailable: delivery not sent, tried again later',
      );
      await this.deps.repository.postpone(claim, new Date(this.clock() + (this.deps.options.signingRetryMs ?? 30_000))).catch(() => undefined);
      return;
    }
    const report = await this.deps.sender.attempt({
      endpointId: claim.endpointId,
      eventId: claim.eventId,
      url: claim.url,
      body: claim.body,
      signers,
      reference: claim.reference,
      attempt: claim.attempt,
      trace: claim.trace,
    });
    const record = this.decide(claim, report);
    this.deps.metrics.attempts.inc({ outcome: record.outcome });
    this.deps.metrics.attemptDuration.observe(report.latencyMs);
    if (record.state === 'delivered') this.deps.metrics.deliveryLatency.observe(record.endedAt.getTime() - claim.publishedAt.getTime());
    this.pending.push(record);
    this.scheduleFlush();
  }

  /** The result of an attempt under the delivery rules (docs/delivery.md). */
  private decide(claim: ClaimedDelivery, report: AttemptReport): AttemptRecord {
    const { outcome, retryAfterMs } = classifyAttempt(report.result);
    const endedAt = report.startedAt + report.latencyMs;
    const base = {
      delivery: claim,
      startedAt: new Date(report.startedAt),
      endedAt: new Date(endedAt),
      latencyMs: report.latencyMs,
      status: report.result.kind === 'answered' ? report.result.status : null,
      outcome,
      excerpt: report.excerpt,
    };
    if (outcome === 'delivered') return { ...base, error: null, state: 'delivered', nextAttemptAt: null, roundFailures: claim.roundFailures };
    const failures = claim.roundFailures + 1;
    const next = nextAttemptAt(this.deps.options.retry, failures, endedAt, this.random(), retryAfterMs);
    return {
      ...base,
      error: errorOf(report.result),
      state: next === null ? 'failed' : 'pending',
      nextAttemptAt: next === null ? null : new Date(next),
      roundFailures: failures,
    };
  }

  private scheduleFlush(): void {
    if (this.pending.length >= this.deps.options.flushBatch) {
      void this.flush();
      return;
    }
    this.flushTimer ??= setTimeout(() => void this.flush(), this.deps.options.flushDelayMs);
  }

  /**
   * Writes the results gathered so far, one transaction at a time. A failed write (the
   * database is down) keeps them and tries again: a result is never dropped. Meanwhile their
   * leases may end and the deliveries be attempted again: at-least-once, never lost.
   */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushing = this.flushing.then(async () => {
      for (let failures = 0; this.pending.length > 0;) {
        const batch = this.pending.slice(0, this.deps.options.flushBatch * 4);
        try {
          const recorded = await this.deps.repository.recordResults(
            batch,
            (failingSince, results) => this.health(failingSince, results),
            (r) => this.deadLetter(r),
          );
          this.pending = this.pending.slice(batch.length);
          failures = 0;
          this.afterCommit(recorded.deadLettered, recorded.changes);
          // A retry due before the loop's sleep ends (it may sleep until a lease's end or an idle
          // poll): one look times the sleep by it.
          if (batch.some((r) => r.state === 'pending' && r.nextAttemptAt !== null && r.nextAttemptAt.getTime() < this.sleepsUntil)) this.wake();
        } catch (error) {
          failures += 1;
          this.deps.logger.warn({ err: error, results: batch.length, failures }, 'recording delivery attempts failed; retrying');
          await sleep(Math.min(5_000, 100 * 2 ** failures));
          if (!this.running && failures > 20) throw error;
        }
      }
    });
    return this.flushing.catch((error: unknown) =>
      this.deps.logger.error(
        { err: error, results: this.pending.length },
        'delivery attempts left unrecorded at shutdown; they are attempted again after their lease',
      ),
    );
  }

  /** An endpoint's health after its results, in the order they ended (docs/delivery.md, "Endpoint health"). */
  private health(failingSince: Date | null, results: readonly AttemptRecord[]): { failingSince: Date | null; disabled: EndpointHealthChange['disabled'] } {
    let since = failingSince?.getTime() ?? null;
    let disabled: EndpointHealthChange['disabled'] = null;
    for (const r of results) {
      if (r.outcome === 'delivered') {
        // A delivery ends the failing run; a 410 seen before it still stands (the endpoint said gone).
        since = null;
        if (disabled === 'failing') disabled = null;
        continue;
      }
      since ??= r.endedAt.getTime();
      disabled = disableReason(r.outcome, since, r.endedAt.getTime(), this.deps.options.disableAfterMs) ?? disabled;
    }
    return { failingSince: since === null ? null : new Date(since), disabled };
  }

  private deadLetter(r: AttemptRecord): OutboxMessage<'DeliveryDeadLettered'> {
    const d = r.delivery;
    return {
      type: 'DeliveryDeadLettered',
      key: d.endpointId,
      trace: d.trace,
      payload: {
        event_id: deterministicId('DeliveryDeadLettered', d.id, d.attempt),
        occurred_at: r.endedAt.getTime(),
        correlation_id: d.correlationId,
        reference: d.reference,
        entitlement_event_id: d.eventId,
        endpoint_id: d.endpointId,
        endpoint_url: redactedUrl(d.url),
        user_id: d.userId,
        event: d.event,
        attempts: r.roundFailures,
        first_attempt_at: d.firstAttemptAt.getTime(),
        last_status: r.status,
        last_error: r.error,
        payload: d.body,
      },
    };
  }

  private afterCommit(exhausted: readonly AttemptRecord[], changes: readonly EndpointHealthChange[]): void {
    if (exhausted.length > 0) {
      this.deps.relay.wake();
      this.deps.metrics.deadLetters.inc(exhausted.length);
      for (const r of exhausted) {
        this.deps.logger.error(
          {
            alert: 'SETTLE_DELIVERY_DEAD_LETTERED',
            endpointId: r.delivery.endpointId,
            eventId: r.delivery.eventId,
            deliveryId: r.delivery.id,
            attempts: r.roundFailures,
            lastError: r.error,
          },
          'delivery exhausted every retry: dead-lettered',
        );
      }
    }
    for (const change of changes) {
      if (!change.disabled) continue;
      this.deps.metrics.endpointsDisabled.inc({ reason: change.disabled });
      this.deps.logger.error(
        { alert: 'SETTLE_ENDPOINT_DISABLED', endpointId: change.endpointId, reason: change.disabled, failingSince: change.failingSince?.toISOString() ?? null },
        change.disabled === 'gone' ? 'endpoint answered 410 Gone: disabled' : 'endpoint failing continuously: disabled',
      );
    }
  }
}
