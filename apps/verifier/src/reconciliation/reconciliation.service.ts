import { randomUUID } from 'node:crypto';
import {
  addCounts,
  decidePage,
  dueRuns,
  emptyCounts,
  RECONCILIATION_CLASSES,
  type ExceptionResolution,
  type NewException,
  type PageTransaction,
  type ProviderName,
  type RunCounts,
  type ScheduleSettings,
  type ScopeMarker,
} from '@settle/domain';
import type { BatchItem, OutboxMessage, OutboxRelay, ReconciliationExceptionObservedV1, ReconciliationRunRecordedV1 } from '@settle/messaging';
import { deterministicId, inTransaction, type Logger, type Pool, type PoolClient } from '@settle/platform';
import { canListMovements, ProviderCallError, type MovementLister, type MovementPage, type TransactionLister, type TransactionPage } from '@settle/providers';
import { movementReads, movementReferences, nextRunPhase, runPhaseOf, storedCursorOf, type RunPhase } from './movement-phase.js';
import type { ReconciliationMetrics } from './reconciliation.metrics.js';
import { ReconciliationRepository, type StoredRun } from './reconciliation.repository.js';

/** Settings of the reconciler (verifier configuration `RECONCILIATION_*`, docs/configuration.md). */
export interface ReconcilerSettings extends ScheduleSettings {
  /** Whether the schedule creates runs (on-demand requests are recorded either way). */
  readonly enabled: boolean;
  /** Between looks for due or requested runs, milliseconds. */
  readonly tickMs: number;
  /** An unknown transaction created this recently is left to a later run, milliseconds. */
  readonly graceMs: number;
  /** The duplicate charge window, milliseconds. */
  readonly duplicateWindowMs: number;
  /** Settle's marker per provider that can list; a provider without one is not reconciled. */
  readonly scope: Readonly<Partial<Record<ProviderName, ScopeMarker>>>;
  /** How long a claimed run is this verifier's before another may resume it, milliseconds (default 60 000; renewed every page). */
  readonly leaseMs?: number;
  /** A progress record is published at most this often while a run pages, milliseconds (default 2 000). */
  readonly progressEveryMs?: number;
}

/** The run's state between pages, as the run row stores it. */
interface Progress {
  /** The stored cursor: the phase and the provider's cursor in it (`runPhaseOf`). */
  cursor: string | null;
  pages: number;
  totalPages: number | null;
  listed: number;
  counts: RunCounts;
  raised: number;
  resolved: number;
}

/** One page fetched for a run: of the provider's transaction list, or of its refund and dispute lists. */
type FetchedPage = { readonly phase: 'transactions'; readonly page: TransactionPage } | { readonly phase: 'movements'; readonly page: MovementPage };

/** How a page ends its commit: the cursor stored with it, whether it is the run's last, when, and whether a progress record goes out. */
interface PageStep {
  readonly cursor: string | null;
  readonly last: boolean;
  /** epoch ms */
  readonly at: number;
  readonly announce: boolean;
}

/** What this verifier's share of a run read from the refund and dispute lists, for the run's log (not stored: a resumed run counts from where it resumed). */
interface MovementTally {
  rows: number;
  asked: number;
}

/**
 * Reconciliation runs against the providers' own lists (docs/reconciliation.md), in the verifier:
 * it alone holds the providers' credentials, and a run shares the provider's retry and breaker
 * budget with verification, so a run can never push a provider past its rate limits behind
 * verification's back. Every `tickMs` it creates the runs the schedule says are due, then claims
 * one runnable run (with a lease) and pages through it: each page is decided by `decidePage`
 * (libs/domain) and committed in one transaction together with the run's cursor and counts, the
 * exceptions raised or resolved, the candidates of unknown payments and the outbox messages
 * (exception facts, verification requests, progress). When the adapter can list refunds and
 * disputes (`canListMovements`), the same run then pages those lists for the same window (the
 * movement phase, its cursor stored with the prefix `m|`: `movement-phase.ts`), and asks the
 * verifier to read the money of each settled payment they name. A verifier that dies mid-run
 * leaves its lease to expire; the next claim resumes from the stored cursor, in whichever phase it
 * is, and a page committed twice is impossible because the cursor is compared on write.
 */
export class ReconciliationService {
  private readonly repository: ReconciliationRepository;
  private readonly leaseMs: number;
  private readonly progressEveryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private ticking = false;
  /** A wake came during a tick: tick again right after it. */
  private again = false;

  /**
   * @param listers - the adapters that can list their provider's transactions, by provider.
   * @param outbox - the verifier's outbox (exception facts, verification requests, run records).
   */
  constructor(
    private readonly pool: Pool,
    private readonly listers: ReadonlyMap<ProviderName, TransactionLister>,
    private readonly outbox: { enqueue(client: PoolClient, messages: readonly OutboxMessage[]): Promise<void> },
    private readonly relay: Pick<OutboxRelay, 'wake'>,
    private readonly logger: Logger,
    private readonly metrics: ReconciliationMetrics,
    private readonly settings: ReconcilerSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.repository = new ReconciliationRepository(pool);
    this.leaseMs = settings.leaseMs ?? 60_000;
    this.progressEveryMs = settings.progressEveryMs ?? 2_000;
  }

  /** Starts ticking (the first tick at once). */
  start(): void {
    this.stopped = false;
    this.loop();
  }

  /**
   * Ticks now rather than at the next interval (a run was just requested, so `./settle reconcile`
   * and the console's action start at once); a tick in progress is followed by another.
   */
  wake(): void {
    if (this.stopped || this.timer === undefined) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.loop();
  }

  private loop(): void {
    if (this.stopped) return;
    this.ticking = true;
    this.timer = undefined;
    this.running = this.tick()
      .catch((error: unknown) => this.logger.error({ err: error }, 'reconciliation tick failed; retried at the next tick'))
      .finally(() => {
        this.ticking = false;
        if (this.stopped) return;
        const delay = this.again ? 0 : this.settings.tickMs;
        this.again = false;
        this.timer = setTimeout(() => this.loop(), delay);
      });
  }

  /** Stops ticking and waits for the page in hand to commit (the run resumes from its cursor on the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One look: due runs created, then runnable runs executed one after another until none is left. */
  async tick(): Promise<void> {
    if (this.settings.enabled) await this.schedule();
    for (;;) {
      if (this.stopped) return;
      const run = await this.repository.claim(this.clock(), this.leaseMs);
      if (!run) break;
      await this.execute(run);
    }
    const open = await this.repository.openByClass();
    for (const cls of RECONCILIATION_CLASSES) this.metrics.open.set({ class: cls }, open.get(cls) ?? 0);
  }

  /**
   * The run requests and operator resolutions of a transaction-events batch (other message types
   * are the verification service's): a run is recorded pending (once, whatever the redelivery),
   * an exception resolved with the operator's reason.
   *
   * @returns the items that can never be processed (a run for a provider that cannot list), by index.
   */
  async handleRequests(items: readonly BatchItem[]): Promise<Array<{ index: number; error: unknown }>> {
    const failed: Array<{ index: number; error: unknown }> = [];
    const runs = items.flatMap(({ event }) => {
      if (event.type !== 'ReconciliationRunRequested') return [];
      const p = event.payload;
      return [
        {
          runId: p.reference,
          provider: p.provider,
          kind: 'on_demand' as const,
          windowFrom: p.window_from,
          windowUntil: p.window_until,
          dryRun: p.dry_run,
          startedBy: p.requested_by,
          correlationId: p.correlation_id,
          causationId: p.event_id,
          requestedAt: p.occurred_at,
        },
      ];
    });
    const resolutions = items.flatMap(({ event }) => (event.type === 'ReconciliationExceptionResolveRequested' ? [event.payload] : []));
    if (runs.length === 0 && resolutions.length === 0) return failed;
    let requested = 0;
    await inTransaction(this.pool, async (client) => {
      const created = await this.repository.createRuns(client, runs);
      requested = created.length;
      if (created.length > 0) this.logger.info({ runs: created }, 'reconciliation runs requested');
      const messages: OutboxMessage[] = [];
      for (const request of resolutions) {
        const [resolved] = await this.repository.resolve(client, [request.exception_id], request.occurred_at);
        if (!resolved) {
          this.logger.warn({ exceptionId: request.exception_id }, 'resolve request for an exception that is not open; nothing changed');
          continue;
        }
        messages.push(
          exceptionMessage({
            eventId: randomUUID(),
            at: request.occurred_at,
            correlationId: request.correlation_id,
            causationId: request.event_id,
            exceptionId: resolved.exceptionId,
            provider: resolved.provider,
            reference: resolved.reference,
            change: 'resolved',
            class: resolved.class,
            runId: null,
            resolution: { kind: 'operator', note: request.reason, by: request.resolved_by },
          }),
        );
      }
      await this.outbox.enqueue(client, messages);
    });
    this.relay.wake();
    if (requested > 0) this.wake();
    return failed;
  }

  /**
   * The live duplicate check (docs/reconciliation.md, "Possible duplicate charges"): right after
   * the verifier settled these payments, each that repeats an earlier payment of the same user for
   * the same entitlement within the window is raised as a `possible_duplicate` exception at once,
   * not only by the next run. Runs after the settlement's own commit: a verifier dying in between
   * loses the live flag, and the next run raises it instead.
   */
  async flagDuplicates(references: readonly string[]): Promise<void> {
    if (references.length === 0) return;
    const at = this.clock();
    const raised = await inTransaction(this.pool, async (client) => {
      const duplicates = await this.repository.duplicates(client, references, this.settings.duplicateWindowMs);
      if (duplicates.size === 0) return 0;
      const settle = await this.repository.settleRecords(client, [...duplicates.keys()]);
      const candidates = [...duplicates].flatMap(([reference, earlier]) => {
        const record = settle.get(reference);
        return record ? [{ record, earlier, exceptionId: `rex_${randomUUID()}` }] : [];
      });
      const opened = await this.repository.raise(
        client,
        candidates.map((c) => ({
          exceptionId: c.exceptionId,
          provider: c.record.provider,
          reference: c.record.reference,
          class: 'possible_duplicate',
          runId: null,
          atMs: at,
        })),
      );
      const messages = candidates
        .filter((c) => opened.has(c.exceptionId))
        .map((c) => {
          const message = exceptionMessage({
            eventId: randomUUID(),
            at,
            correlationId: c.record.correlationId,
            causationId: c.record.correlationId,
            exceptionId: c.exceptionId,
            provider: c.record.provider,
            reference: c.record.reference,
            change: 'raised',
            class: 'possible_duplicate',
            runId: null,
            resolution: null,
          });
          this.metrics.raised.inc({ provider: c.record.provider, class: 'possible_duplicate' });
          return {
            ...message,
            payload: {
              ...message.payload,
              evidence: [{ field: 'duplicate_of', provider: c.record.reference, settle: c.earlier }],
              amount_minor: c.record.amountMinor,
              currency: c.record.currency,
            },
          };
        });
      await this.outbox.enqueue(client, messages);
      return messages.length;
    });
    if (raised > 0) {
      this.relay.wake();
      this.logger.warn({ alert: 'SETTLE_POSSIBLE_DUPLICATE_CHARGE', references: [...references] }, 'possible duplicate charge settled');
    }
  }

  /** Creates the runs the schedule says are due, per provider that can list and has a marker. */
  private async schedule(): Promise<void> {
    const now = this.clock();
    for (const provider of this.listers.keys()) {
      if (!this.settings.scope[provider]) continue;
      const created = await inTransaction(this.pool, async (client) => {
        const stored = await this.repository.lockSchedule(client, provider);
        const { runs, next } = dueRuns(stored, now, this.settings);
        await this.repository.saveSchedule(client, provider, next);
        return this.repository.createRuns(
          client,
          runs.map((r) => {
            const runId = `rcr_${randomUUID()}`;
            return {
              runId,
              provider,
              kind: r.kind,
              windowFrom: r.fromMs,
              windowUntil: r.untilMs,
              dryRun: false,
              startedBy: 'schedule',
              correlationId: randomUUID(),
              causationId: runId,
              requestedAt: now,
            };
          }),
        );
      });
      if (created.length > 0) this.logger.info({ provider, runs: created }, 'scheduled reconciliation runs created');
    }
  }

  /**
   * Pages through one claimed run from its stored cursor to the end, the next page fetched while
   * the current one commits: the transaction list, then (when the adapter can) the refund and
   * dispute lists. A provider failure that retries could not fix leaves the run to a later tick
   * when it may pass (`retryable`), else fails it; either way recorded.
   */
  private async execute(run: StoredRun): Promise<void> {
    const lister = this.listers.get(run.provider);
    const marker = this.settings.scope[run.provider];
    if (!lister || !marker) {
      const reason = !lister ? 'RECONCILIATION.PROVIDER_CANNOT_LIST' : 'RECONCILIATION.NO_SCOPE_MARKER';
      await this.fail(run, progressOf(run), `${reason}: ${run.provider} cannot be reconciled by this verifier`);
      return;
    }
    const movements = canListMovements(lister) ? lister : undefined;
    const first = runPhaseOf(run.cursor);
    if (first.phase === 'movements' && !movements) {
      await this.fail(run, progressOf(run), `RECONCILIATION.PROVIDER_CANNOT_LIST_MOVEMENTS: ${run.provider} cannot list refunds and disputes in this verifier`);
      return;
    }
    const log = this.logger.child({ runId: run.runId, provider: run.provider, kind: run.kind, dryRun: run.dryRun });
    const window = { fromMs: run.windowFrom, untilMs: run.windowUntil };
    let progress = progressOf(run);
    if (run.pages === 0) await this.record(run, progress, 'started');
    log.info(
      { cursor: run.cursor, phase: first.phase, from: new Date(run.windowFrom).toISOString(), until: new Date(run.windowUntil).toISOString() },
      'reconciliation run paging',
    );
    const tally: MovementTally = { rows: 0, asked: 0 };
    let lastProgressAt = this.clock();
    let pending = fetchPage(lister, movements, window, first);
    try {
      for (;;) {
        const fetched = await pending;
        const then = nextRunPhase(fetched.phase, fetched.page.next, movements !== undefined);
        if (then !== null && !this.stopped) {
          pending = fetchPage(lister, movements, window, then);
          // Awaited on the next turn; marked handled so a failure while this page commits is not unhandled.
          pending.catch(() => undefined);
        }
        const at = this.clock();
        const step: PageStep = {
          cursor: storedCursorOf(then),
          last: then === null,
          at,
          announce: then === null || at - lastProgressAt >= this.progressEveryMs,
        };
        const next =
          fetched.phase === 'transactions'
            ? await this.commitPage(run, progress, fetched.page, step)
            : await this.commitMovementPage(run, progress, fetched.page, step, tally, log);
        if (next === null) {
          log.warn('reconciliation run taken over by another verifier; stopping here');
          return;
        }
        progress = next;
        if (step.announce) lastProgressAt = at;
        if (step.last) break;
        if (this.stopped) return;
      }
    } catch (error) {
      if (error instanceof ProviderCallError && error.retryable) {
        log.warn({ code: error.code }, 'provider list failed after retries; the run resumes from its cursor at a later tick');
        await this.repository.release(run.runId, this.clock() + this.settings.tickMs, `${error.code}: ${error.message}`);
        return;
      }
      const code = error instanceof ProviderCallError ? error.code : 'RECONCILIATION.FAILED';
      log.error({ err: error, code }, 'reconciliation run failed');
      await this.fail(run, progress, `${code}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.metrics.runs.inc({ provider: run.provider, kind: run.kind, status: 'completed' });
    log.info(
      {
        pages: progress.pages,
        listed: progress.listed,
        counts: progress.counts,
        raised: progress.raised,
        resolved: progress.resolved,
        movementRows: tally.rows,
        movementReads: tally.asked,
      },
      'reconciliation run completed',
    );
  }

  /**
   * Decides one page of the transaction list and commits it with the run's new cursor, in one transaction.
   *
   * @returns the run's progress after the page; `null` when another verifier took the run over.
   */
  private async commitPage(run: StoredRun, before: Progress, page: TransactionPage, step: PageStep): Promise<Progress | null> {
    const marker = this.settings.scope[run.provider]!;
    const at = step.at;
    const references = [...new Set(page.transactions.map((t) => t.reference))];
    // The reads run in parallel on the pool, before the page's transaction: a state read a moment
    // early is harmless (an exception opened meanwhile is not opened twice: the unique index), and
    // the transaction holds its connection only for the writes.
    const [settle, open, duplicates, knownUnmatched] = await Promise.all([
      this.repository.settleRecords(this.pool, references),
      this.repository.openExceptions(this.pool, references),
      this.repository.duplicates(this.pool, references, this.settings.duplicateWindowMs),
      this.repository.knownUnmatched(this.pool, references),
    ]);
    return this.inPageTransaction(async (client) => {
      const outcome = decidePage({
        transactions: page.transactions,
        marker,
        settle,
        open,
        duplicates,
        knownUnmatched,
        nowMs: at,
        graceMs: this.settings.graceMs,
      });
      const messages: OutboxMessage[] = [];
      let raised = 0;
      let resolved = 0;
      if (!run.dryRun) {
        const newOnes = outcome.raise.map((e) => ({ exception: e, exceptionId: `rex_${randomUUID()}` }));
        const opened = await this.repository.raise(
          client,
          newOnes.map(({ exception, exceptionId }) => ({
            exceptionId,
            provider: run.provider,
            reference: exception.reference,
            class: exception.class,
            runId: run.runId,
            atMs: at,
          })),
        );
        for (const { exception, exceptionId } of newOnes) {
          if (!opened.has(exceptionId)) continue;
          raised += 1;
          this.metrics.raised.inc({ provider: run.provider, class: exception.class });
          messages.push(raisedMessage(run, exception, exceptionId, settle.get(exception.reference)?.correlationId ?? run.correlationId, at));
        }
        const resolutionOf = new Map(outcome.resolve.map((r) => [r.exception.exceptionId, r.now]));
        for (const done of await this.repository.resolve(client, [...resolutionOf.keys()], at)) {
          resolved += 1;
          const now = resolutionOf.get(done.exceptionId)!;
          const kind: ExceptionResolution = now === 'matches' || now === 'not_paid' || now === 'not_paid_unknown' ? 'matches' : 'reclassified';
          messages.push(
            exceptionMessage({
              eventId: randomUUID(),
              at,
              correlationId: run.correlationId,
              causationId: run.runId,
              exceptionId: done.exceptionId,
              provider: done.provider,
              reference: done.reference,
              change: 'resolved',
              class: done.class,
              runId: run.runId,
              resolution: { kind, note: `now ${now}`, by: null },
            }),
          );
        }
        await this.repository.reportedAgain(
          client,
          outcome.reportedAgain.map((e) => e.exceptionId),
          run.runId,
        );
        for (const ask of outcome.verify) {
          const correlationId = settle.get(ask.reference)?.correlationId ?? randomUUID();
          if (ask.class === 'unknown_to_settle') await this.candidate(client, ask.transaction, correlationId, at);
          messages.push(verificationRequest(run, ask.reference, correlationId, at));
        }
      }
      const progress: Progress = {
        cursor: step.cursor,
        pages: before.pages + 1,
        totalPages: page.totalPages ?? before.totalPages,
        listed: before.listed + page.rows,
        counts: addCounts({ ...before.counts }, outcome.counts),
        raised: before.raised + raised,
        resolved: before.resolved + resolved,
      };
      await this.closePage(client, run, before, progress, step, messages);
      for (const [cls, n] of Object.entries(outcome.counts)) if (n > 0) this.metrics.transactions.inc({ provider: run.provider, class: cls }, n);
      return progress;
    });
  }

  /**
   * Commits one page of the refund and dispute lists with the run's new cursor, in one
   * transaction: a verification request (trigger `reconciliation`) for each settled payment it
   * names (`movementReads`), none in a dry run. Its rows count in `listed`; no class is counted
   * and no exception raised: what the payment's money now is, the verifier reads and the ledger
   * records (docs/state-machine.md, "The money after settlement").
   *
   * @param tally - this verifier's counts for the run's log, added to once the page is committed.
   * @returns the run's progress after the page; `null` when another verifier took the run over.
   */
  private async commitMovementPage(
    run: StoredRun,
    before: Progress,
    page: MovementPage,
    step: PageStep,
    tally: MovementTally,
    log: Logger,
  ): Promise<Progress | null> {
    const references = movementReferences(page.movements);
    let asked = 0;
    const progress = await this.inPageTransaction(async (client) => {
      const reads = run.dryRun ? [] : movementReads(run.provider, references, await this.repository.settleRecords(client, references));
      asked = reads.length;
      const messages: OutboxMessage[] = reads.map((read) => verificationRequest(run, read.reference, read.correlationId, step.at));
      const after: Progress = { ...before, cursor: step.cursor, pages: before.pages + 1, listed: before.listed + page.rows };
      await this.closePage(client, run, before, after, step, messages);
      return after;
    });
    if (progress === null) return null;
    tally.rows += page.rows;
    tally.asked += asked;
    if (page.skipped) log.warn({ skipped: page.skipped }, 'refund or dispute rows that could not be read were not listed');
    log.debug({ rows: page.rows, references: references.length, asked }, 'reconciliation refund and dispute page committed');
    return progress;
  }

  /**
   * The end every page's transaction shares: a progress record when one is due, the run's new
   * cursor, pages, counts and lease written only if the run is still where this verifier left it,
   * the run completed on its last page, and the outbox messages enqueued.
   *
   * @throws TakenOver when another verifier took the run over (the page is rolled back).
   */
  private async closePage(client: PoolClient, run: StoredRun, before: Progress, progress: Progress, step: PageStep, messages: OutboxMessage[]): Promise<void> {
    if (step.announce && !step.last) messages.push(runMessage(run, progress, 'progressed', step.at, null));
    const advanced = await this.repository.advance(client, run, before.cursor, { ...progress, leaseUntil: step.at + this.leaseMs });
    if (!advanced) throw new TakenOver();
    // The last page completes the run in the same transaction: a crash can never leave a run
    // read to its end but not completed (its cursor would read as "not started").
    if (step.last) {
      await this.repository.finish(client, run.runId, 'completed', step.at, null);
      messages.push(runMessage(run, progress, 'completed', step.at, null));
    }
    await this.outbox.enqueue(client, messages);
  }

  /** Runs a page's writes in one transaction, then wakes the relay; `null` when another verifier took the run over. */
  private async inPageTransaction(work: (client: PoolClient) => Promise<Progress>): Promise<Progress | null> {
    try {
      const progress = await inTransaction(this.pool, work);
      this.relay.wake();
      return progress;
    } catch (error) {
      if (error instanceof TakenOver) return null;
      throw error;
    }
  }

  /**
   * Records a payment the provider lists as paid and Settle never heard of as an unmatched payment
   * candidate (docs/unmatched-payments.md): its verification (trigger `reconciliation`) records
   * what the provider says, as for a candidate from a signed webhook. The provider's own list is
   * the evidence it exists, so no spoofed body can make Settle ask about it.
   */
  private async candidate(client: PoolClient, transaction: PageTransaction, correlationId: string, at: number): Promise<void> {
    await client.query(
      `INSERT INTO verifier.unmatched_payments (reference, provider, correlation_id, status, first_seen_at)
       VALUES ($1, $2, $3, 'candidate', $4) ON CONFLICT (reference) DO NOTHING`,
      [transaction.reference, transaction.provider, correlationId, at],
    );
  }

  /** Publishes a run record without touching the page cursor (its start). */
  private async record(run: StoredRun, progress: Progress, status: 'started'): Promise<void> {
    await inTransaction(this.pool, (client) => this.outbox.enqueue(client, [runMessage(run, progress, status, this.clock(), null)]));
    this.relay.wake();
  }

  private async fail(run: StoredRun, progress: Progress, error: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await this.repository.finish(client, run.runId, 'failed', this.clock(), error);
      await this.outbox.enqueue(client, [runMessage(run, progress, 'failed', this.clock(), error)]);
    });
    this.relay.wake();
    this.metrics.runs.inc({ provider: run.provider, kind: run.kind, status: 'failed' });
  }
}

/** Another verifier claimed the run after this one's lease expired: this one's page is rolled back. */
class TakenOver extends Error {}

/**
 * Fetches the page a phase names: from the transaction list, or from the refund and dispute lists.
 * Always a promise, even when the adapter throws at once (a cursor it never wrote).
 */
async function fetchPage(
  lister: TransactionLister,
  movements: MovementLister | undefined,
  window: { fromMs: number; untilMs: number },
  phase: RunPhase,
): Promise<FetchedPage> {
  if (phase.phase === 'transactions') return { phase: 'transactions', page: await lister.listPage(window, phase.cursor) };
  // Unreachable: `execute` fails a run in the movement phase whose adapter cannot list movements before it fetches.
  if (!movements) throw new Error('RECONCILIATION.PROVIDER_CANNOT_LIST_MOVEMENTS: the adapter cannot list refunds and disputes');
  return { phase: 'movements', page: await movements.listMovementPage(window, phase.cursor) };
}

/** A `VerificationRequested` the run asks for one reference (trigger `reconciliation`, requested by the run, caused by it). */
function verificationRequest(run: StoredRun, reference: string, correlationId: string, at: number): OutboxMessage<'VerificationRequested'> {
  return {
    type: 'VerificationRequested',
    payload: {
      event_id: randomUUID(),
      occurred_at: at,
      correlation_id: correlationId,
      reference,
      trigger: 'reconciliation',
      requested_by: `reconciliation:${run.runId}`,
    },
    causationId: run.runId,
  };
}

function progressOf(run: StoredRun): Progress {
  return {
    cursor: run.cursor,
    pages: run.pages,
    totalPages: run.totalPages,
    listed: run.listed,
    counts: { ...emptyCounts(), ...run.counts },
    raised: run.exceptionsRaised,
    resolved: run.exceptionsResolved,
  };
}

function runMessage(
  run: StoredRun,
  p: Progress,
  status: ReconciliationRunRecordedV1['status'],
  at: number,
  error: string | null,
): OutboxMessage<'ReconciliationRunRecorded'> {
  return {
    type: 'ReconciliationRunRecorded',
    causationId: run.causationId,
    payload: {
      // A run starts, completes or fails once: those records' ids derive from the run's, so one
      // published again after a crash is stored once; progress records are each their own.
      event_id: status === 'progressed' ? randomUUID() : deterministicId('ReconciliationRunRecorded', run.runId, status),
      occurred_at: at,
      correlation_id: run.correlationId,
      causation_id: run.causationId,
      reference: run.runId,
      provider: run.provider,
      kind: run.kind,
      window_from: run.windowFrom,
      window_until: run.windowUntil,
      dry_run: run.dryRun,
      started_by: run.startedBy,
      status,
      pages: p.pages,
      total_pages: p.totalPages,
      listed: p.listed,
      out_of_scope: p.counts.out_of_scope,
      too_recent: p.counts.too_recent,
      classes: RECONCILIATION_CLASSES.map((cls) => ({ class: cls, count: p.counts[cls] })),
      exceptions_raised: p.raised,
      exceptions_resolved: p.resolved,
      started_at: run.startedAt ?? at,
      finished_at: status === 'completed' || status === 'failed' ? at : null,
      error,
    },
  };
}

function raisedMessage(
  run: StoredRun,
  exception: NewException,
  exceptionId: string,
  correlationId: string,
  at: number,
): OutboxMessage<'ReconciliationExceptionObserved'> {
  const t = exception.transaction;
  return {
    type: 'ReconciliationExceptionObserved',
    causationId: run.runId,
    payload: {
      ...exceptionMessage({
        eventId: randomUUID(),
        at,
        correlationId,
        causationId: run.runId,
        exceptionId,
        provider: run.provider,
        reference: exception.reference,
        change: 'raised',
        class: exception.class,
        runId: run.runId,
        resolution: null,
      }).payload,
      evidence: exception.evidence.map((e) => ({ field: e.field, provider: e.provider, settle: e.settle })),
      provider_transaction_id: t.providerTransactionId ?? null,
      provider_status: t.providerStatus,
      amount_minor: t.amountMinor,
      currency: t.currency.toUpperCase(),
    },
  };
}

/** A `ReconciliationExceptionObserved` message with no provider fields (a resolution, or the base of a raise). */
export function exceptionMessage(o: {
  eventId: string;
  at: number;
  correlationId: string;
  causationId: string;
  exceptionId: string;
  provider: ProviderName;
  reference: string;
  change: 'raised' | 'resolved';
  class: ReconciliationExceptionObservedV1['class'];
  runId: string | null;
  resolution: { kind: ExceptionResolution; note: string | null; by: string | null } | null;
}): OutboxMessage<'ReconciliationExceptionObserved'> {
  return {
    type: 'ReconciliationExceptionObserved',
    causationId: o.causationId,
    payload: {
      event_id: o.eventId,
      occurred_at: o.at,
      correlation_id: o.correlationId,
      causation_id: o.causationId,
      reference: o.reference,
      provider: o.provider,
      exception_id: o.exceptionId,
      change: o.change,
      class: o.class,
      evidence: [],
      run_id: o.runId,
      provider_transaction_id: null,
      provider_status: null,
      amount_minor: null,
      currency: null,
      resolution: o.resolution?.kind ?? null,
      resolution_note: o.resolution?.note ?? null,
      resolved_by: o.resolution?.by ?? null,
    },
  };
}
