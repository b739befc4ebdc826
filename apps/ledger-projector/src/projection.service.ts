import {
  decideGrant,
  foldEntitlement,
  parseAccessPeriod,
  SettleError,
  type AccessPeriod,
  type EntitlementEvent,
  type EntitlementGranted,
  type ErrorKind,
} from '@settle/domain';
import {
  DuplicateEventIdError,
  entitlementEventOf,
  entitlementLedgerEvent,
  entitlementStream,
  expectedAfter,
  isTransactionOutcomeType,
  reconciliationExceptionFact,
  reconciliationRunFact,
  type ReconciliationFact,
  transactionStream,
  UNMATCHED_PAYMENT_EVENT_TYPES,
  unmatchedPaymentLedgerEvent,
  unmatchedPaymentStream,
  type LedgerSession,
  type LedgerWriter,
  type TransactionOutcomeEvent,
} from '@settle/ledger';
import {
  PermanentMessageError,
  type BatchItem,
  type ConsensusResultV1,
  type MessageContext,
  type ReconciliationExceptionObservedV1,
  type ReconciliationRunRecordedV1,
  type TypedEvent,
  type UnmatchedPaymentObservedV1,
} from '@settle/messaging';
import { deterministicId, traceCarrierOf, type Logger, type TraceCarrier } from '@settle/platform';
import { AfterSettlementProjection, type ObservedMovements } from './after-settlement.js';
import { MismatchResolutionProjection, type RequestedResolution } from './mismatch-resolution.js';
import type { ProjectorMetrics } from './projector.metrics.js';

/**
 * The ledger event recorded for a consensus result that changed the state (its payload is
 * `TransactionOutcomeData`, defined once in `@settle/ledger`).
 *
 * @throws PermanentMessageError `LEDGER.UNKNOWN_OUTCOME_TYPE` when the result names no outcome event type.
 */
export function ledgerEventFor(result: ConsensusResultV1): TransactionOutcomeEvent {
  const type = result.ledger_event_type;
  if (type === null || !isTransactionOutcomeType(type)) {
    throw new PermanentMessageError('LEDGER.UNKNOWN_OUTCOME_TYPE', `consensus result ${result.event_id} names no ledger outcome type (${String(type)})`);
  }
  return {
    // Derived from the result's identity: a redelivered result appends nothing new.
    eventId: deterministicId('LedgerEvent', result.event_id),
    type,
    data: {
      reference: result.reference,
      provider: result.provider,
      outcome: result.outcome,
      state: result.state_after,
      entitlement_status: result.entitlement_status,
      trigger: result.trigger,
      verdict: result.verdict,
      provider_status: result.provider_status,
      detail: result.detail,
      checks: result.checks,
      expected: { amount_minor: result.amount_minor, currency: result.currency, user_id: result.user_id, entitlement: result.entitlement },
      observed: {
        amount_minor: result.observed_amount_minor,
        charged_amount_minor: result.charged_amount_minor,
        currency: result.observed_currency,
        provider_transaction_id: result.provider_transaction_id,
      },
      decided_at: result.occurred_at,
    },
    metadata: { correlationId: result.correlation_id, causationId: result.event_id },
  };
}

/** A consensus result of the batch whose outcome is in the ledger (appended now, or before). */
interface Recorded {
  index: number;
  result: ConsensusResultV1;
  /** The trace context of the result's `process` span: its settlement and grant records continue it. */
  trace: TraceCarrier | undefined;
  ledgerEvent: TransactionOutcomeEvent;
  /** Appended by this batch (not a redelivery). */
  fresh: boolean;
}

/**
 * A fact of the batch recorded in a stream of its own, never an outcome: an answer about a payment
 * with no checkout (docs/unmatched-payments.md), a reconciliation run's record or an exception
 * raised or resolved (docs/reconciliation.md).
 */
type Observation = { index: number; trace: TraceCarrier | undefined } & (
  | { kind: 'unmatched'; observed: UnmatchedPaymentObservedV1 }
  | { kind: 'run'; observed: ReconciliationRunRecordedV1 }
  | { kind: 'exception'; observed: ReconciliationExceptionObservedV1 }
);

/**
 * The money observations and the resolutions of a batch as consecutive runs of one kind, in
 * offset (index) order: the two kinds are projected in separate sessions, and this keeps their
 * order (one run of each when they do not interleave).
 */
export function offsetRuns(
  movements: readonly ObservedMovements[],
  resolutions: readonly RequestedResolution[],
): Array<{ kind: 'money'; items: ObservedMovements[] } | { kind: 'resolution'; items: RequestedResolution[] }> {
  const tagged = [...movements.map((item) => ({ kind: 'money' as const, item })), ...resolutions.map((item) => ({ kind: 'resolution' as const, item }))].sort(
    (a, b) => a.item.index - b.item.index,
  );
  const runs: Array<{ kind: 'money'; items: ObservedMovements[] } | { kind: 'resolution'; items: RequestedResolution[] }> = [];
  for (const t of tagged) {
    const last = runs.at(-1);
    if (t.kind === 'money') {
      if (last?.kind === 'money') last.items.push(t.item);
      else runs.push({ kind: 'money', items: [t.item] });
    } else if (last?.kind === 'resolution') last.items.push(t.item);
    else runs.push({ kind: 'resolution', items: [t.item] });
  }
  return runs;
}

/** The dead-letter error of a settlement whose grant's event id is stored in another stream (never seen; dead-lettered, never retried). */
function grantStoredElsewhere(): PermanentMessageError {
  return new PermanentMessageError('LEDGER.DUPLICATE_EVENT_ID', 'the grant of this settlement is stored elsewhere');
}

/**
 * Control flow inside the projector, never leaving it: one result of the batch could not be
 * granted, so the batch is handled again one result at a time ({@link ProjectionService.handleBatch}
 * turns it into a dead-letter record for that result alone).
 */
class IsolateResults extends Error {
  constructor() {
    super('a grant of the batch cannot be appended; the batch is handled one result at a time');
    this.name = 'IsolateResults';
  }
}

/**
 * An entitlement stream moved on between reading its history and appending the grant (another
 * projector instance granted the same user and entitlement meanwhile; possible on an event
 * store, where streams are not locked). Transient: the batch is retried and decides again on
 * the new history.
 */
export class GrantRaceError extends SettleError {
  readonly code = 'LEDGER.GRANT_RACE';
  readonly kind: ErrorKind = 'unavailable';
  constructor(stream: string) {
    super(`entitlement stream ${stream} moved on while its grant was decided; retrying`);
    this.name = 'GrantRaceError';
  }
}

/**
 * The ledger projector, batch first, on any ledger store (the `LedgerWriter` port): the
 * consensus results of one Kafka batch (one partition, in offset order) are projected in one
 * session of the store. For each result: its outcome is appended to the transaction's ledger
 * stream at the exact expected revision (a redelivery finds its event id already stored and
 * appends nothing), and the verifier's latest answer is recorded. The store makes the read
 * models and the `SettlementRecorded` message follow from what it committed (on PostgreSQL in
 * the same transaction; on an event store through its checkpointed projection), so a
 * settlement is published if and only if it is in the ledger.
 *
 * A settlement also records the grant it causes (docs/delivery.md, "Grants are ledger facts"):
 * `EntitlementGranted` appended to the stream of the user and entitlement, decided by the pure
 * rules of `@settle/domain` on that stream's history (read under the stream's lock where the
 * store locks; grants of the same stream in one batch see each other in order). A settlement
 * found already recorded is granted again only if its grant is missing (an event store that
 * stopped between the two appends); the rules grant a reference once.
 *
 * The verifier's answers about payments with no checkout (`UnmatchedPaymentObserved`,
 * docs/unmatched-payments.md) are recorded in the same session: a recorded one as
 * `UnmatchedPaymentRecorded`, a matched one as `UnmatchedPaymentMatched`, in the payment's own
 * stream (`unmatched-<reference>`); nothing is granted on them.
 *
 * A result whose append cannot be (a wrong expected revision, an event id stored elsewhere)
 * fails alone, to the dead-letter topic; the rest of the batch commits.
 *
 * With `metrics`, each committed session is observed: its duration (seconds) and the number of
 * consensus results it projected.
 */
export class ProjectionService {
  constructor(
    private readonly ledger: LedgerWriter,
    private readonly logger: Logger,
    private readonly metrics?: ProjectorMetrics,
    private readonly afterSettlement: AfterSettlementProjection = new AfterSettlementProjection(logger),
    private readonly resolutions: MismatchResolutionProjection = new MismatchResolutionProjection(logger),
  ) {}

  /**
   * Projects one consensus result: a batch of one.
   *
   * @throws PermanentMessageError when its append can never be; store errors (transient).
   */
  async handle(event: TypedEvent, context: MessageContext): Promise<void> {
    const [failed] = await this.handleBatch([{ event, context }]);
    if (failed) throw failed.error;
  }

  /**
   * Projects the consensus results of one fetched batch in one session; resolves once its
   * effects are durable. Other message types are ignored.
   *
   * @returns the results whose append can never be (PermanentMessageError with the ledger's
   *   code), by index, for the dead-letter topic.
   * @throws store errors and {@link GrantRaceError} (transient: the batch is retried, and
   *   redeliveries append nothing twice).
   */
  async handleBatch(items: readonly BatchItem[]): Promise<Array<{ index: number; error: unknown }>> {
    // A result published twice by a relay retry may arrive twice in one batch: the later copy
    // is the same message, projected once here (and found stored if it comes in a later batch).
    const seen = new Set<string>();
    const results = items.flatMap(({ event, context }, index) => {
      if (event.type !== 'ConsensusResult' || seen.has(event.payload.event_id)) return [];
      seen.add(event.payload.event_id);
      return [{ index, result: event.payload, trace: traceCarrierOf(context.trace) }];
    });
    const observations = items.flatMap(({ event, context }, index): Observation[] => {
      if (seen.has(event.payload.event_id)) return [];
      const trace = traceCarrierOf(context.trace);
      let observation: Observation;
      if (event.type === 'UnmatchedPaymentObserved') observation = { index, trace, kind: 'unmatched', observed: event.payload };
      else if (event.type === 'ReconciliationRunRecorded') observation = { index, trace, kind: 'run', observed: event.payload };
      else if (event.type === 'ReconciliationExceptionObserved') observation = { index, trace, kind: 'exception', observed: event.payload };
      else return [];
      seen.add(event.payload.event_id);
      return [observation];
    });
    const movements = items.flatMap(({ event, context }, index): ObservedMovements[] => {
      if (event.type !== 'MoneyMovementsObserved' || seen.has(event.payload.event_id)) return [];
      seen.add(event.payload.event_id);
      return [{ index, observed: event.payload, trace: traceCarrierOf(context.trace) }];
    });
    const resolutions = items.flatMap(({ event, context }, index): RequestedResolution[] => {
      if (event.type !== 'MismatchResolutionRequested' || seen.has(event.payload.event_id)) return [];
      seen.add(event.payload.event_id);
      return [{ index, requested: event.payload, trace: traceCarrierOf(context.trace) }];
    });
    const failed = await this.projectOutcomes(results, observations);
    // After the outcomes committed (a money fact or a resolution follows its outcome in the same
    // stream), in sessions of their own (each reads a stream before it appends to it), in offset
    // order: a run of money observations, then a run of resolutions, and so on, so the ledger's
    // facts follow the messages' order whatever the batch boundaries (a refund read after an
    // acceptance as paid revokes its grant; read before, it refuses the acceptance).
    for (const run of offsetRuns(movements, resolutions)) {
      failed.push(...(run.kind === 'money' ? await this.projectMoney(run.items) : await this.projectResolutions(run.items)));
    }
    return failed;
  }

  /**
   * Records operators' resolutions of State Mismatches and the grants of those accepted as paid,
   * in one session (docs/state-machine.md, "Resolving a State Mismatch").
   *
   * @returns the requests the ledger refuses, for the dead-letter topic.
   */
  private async projectResolutions(items: readonly RequestedResolution[]): Promise<Array<{ index: number; error: unknown }>> {
    if (items.length === 0) return [];
    const recorded = await this.ledger.session((session) => this.resolutions.project(session, items));
    for (const { reference, event } of recorded.facts) {
      this.logger.info({ reference, type: event.type }, 'State Mismatch resolution committed to the ledger');
    }
    for (const grant of recorded.grants) {
      const d = grant.data;
      this.logger.info(
        { reference: d.reference, userId: d.userId, entitlement: d.entitlement, expiresAt: new Date(d.expiresAt) },
        'entitlement granted by override',
      );
    }
    for (const { index, error } of recorded.failed) {
      this.logger.warn(
        { reference: items.find((i) => i.index === index)?.requested.reference, code: (error as PermanentMessageError).code },
        'State Mismatch resolution refused',
      );
    }
    return recorded.failed;
  }

  /**
   * Records what the verifier read of settled payments' refunds, disputes and reversals, and the
   * access changes they cause, in one session (docs/state-machine.md, "The money after settlement").
   *
   * @returns the messages that can never be recorded, for the dead-letter topic.
   */
  private async projectMoney(movements: readonly ObservedMovements[]): Promise<Array<{ index: number; error: unknown }>> {
    if (movements.length === 0) return [];
    const recorded = await this.ledger.session((session) => this.afterSettlement.project(session, movements));
    for (const { reference, event } of recorded.facts) {
      const fields = { reference, type: event.type, providerId: event.data.providerId, amountMinor: event.data.amountMinor };
      if (event.type === 'MoneyMovementRejected') {
        this.logger.error(
          { ...fields, alert: 'SETTLE_MONEY_MOVEMENT_REJECTED', checks: event.data.checks.filter((c) => !c.passed).map((c) => c.code) },
          'a provider object about the money failed its checks: nothing recorded about the money; look at it',
        );
      } else this.logger.info({ ...fields, moneyState: event.data.moneyState }, 'money fact committed to the ledger');
    }
    for (const reference of recorded.closed) this.logger.info({ reference }, 'refund-due State Mismatch closed: the provider shows its money returned');
    for (const change of recorded.changes) {
      const d = change.data;
      this.logger.info(
        { reference: d.reference, userId: d.userId, entitlement: d.entitlement, type: change.type, expiresAt: new Date(d.expiresAt) },
        change.type === 'EntitlementRevoked' ? 'entitlement revoked' : 'entitlement reinstated',
      );
    }
    return recorded.failed;
  }

  private async projectOutcomes(
    results: ReadonlyArray<{ index: number; result: ConsensusResultV1; trace: TraceCarrier | undefined }>,
    observations: readonly Observation[],
  ): Promise<Array<{ index: number; error: unknown }>> {
    if (results.length === 0 && observations.length === 0) return [];
    try {
      return await this.project(results, observations);
    } catch (error) {
      if (!(error instanceof IsolateResults)) throw error;
      if (results.length === 1 && observations.length === 0) return [{ index: results[0]!.index, error: grantStoredElsewhere() }];
      // Rare (a grant's event id stored elsewhere): one session per result, so the one that
      // cannot be granted goes to the dead-letter topic alone.
      const failed: Array<{ index: number; error: unknown }> = await this.project([], observations);
      for (const one of results) {
        try {
          failed.push(...(await this.project([one])));
        } catch (single) {
          if (!(single instanceof IsolateResults)) throw single;
          failed.push({ index: one.index, error: grantStoredElsewhere() });
        }
      }
      return failed;
    }
  }

  private async project(
    results: ReadonlyArray<{ index: number; result: ConsensusResultV1; trace: TraceCarrier | undefined }>,
    observations: readonly Observation[] = [],
  ): Promise<Array<{ index: number; error: unknown }>> {
    const failed: Array<{ index: number; error: unknown }> = [];
    const started = performance.now();
    const { appended, grants, unmatched } = await this.ledger.session(async (session) => {
      const unmatched = await this.recordUnmatched(session, observations, failed);
      if (results.length === 0) return { appended: [], grants: [], unmatched };
      await session.recordLatestVerifications(
        results.map(({ result }) => ({
          reference: result.reference,
          verdict: result.verdict,
          trigger: result.trigger,
          causationId: result.causation_id,
          state: result.state_after,
          entitlementStatus: result.entitlement_status,
          decidedAt: new Date(result.occurred_at),
        })),
      );
      const changes = results.flatMap(({ index, result, trace }) => {
        if (!result.ledger_event_type) return [];
        try {
          return [{ index, result, trace, ledgerEvent: ledgerEventFor(result) }];
        } catch (error) {
          failed.push({ index, error });
          return [];
        }
      });
      const outcomes = await session.append(
        changes.map(({ result, ledgerEvent, trace }) => ({
          streamId: transactionStream(result.reference),
          events: [ledgerEvent],
          expected: expectedAfter(result.ledger_expected_revision),
          trace,
        })),
      );
      const recorded: Recorded[] = [];
      for (const [i, change] of changes.entries()) {
        const outcome = outcomes[i]!;
        if (outcome.status === 'rejected') failed.push({ index: change.index, error: new PermanentMessageError(outcome.error.code, outcome.error.message) });
        else recorded.push({ ...change, fresh: outcome.status === 'appended' });
      }
      const granted = await this.grant(
        session,
        recorded.filter((r) => r.result.outcome === 'SETTLED_CONSENSUS'),
      );
      return { appended: recorded.filter((r) => r.fresh), grants: granted, unmatched };
    });
    this.metrics?.appendDuration.observe((performance.now() - started) / 1000);
    this.metrics?.appendBatchSize.observe(results.length + observations.length);
    for (const { observed, type } of unmatched) {
      this.logger.info(
        { reference: observed.reference, provider: observed.provider, type, correlationId: observed.correlation_id },
        'fact committed to the ledger',
      );
    }
    for (const { result } of appended) {
      this.logger.info(
        { reference: result.reference, outcome: result.outcome, correlationId: result.correlation_id, causationId: result.causation_id },
        'outcome committed to the ledger',
      );
    }
    for (const { reference, grant } of grants) {
      const d = grant.data;
      this.logger.info({ reference, userId: d.userId, entitlement: d.entitlement, event: d.event, expiresAt: new Date(d.expiresAt) }, 'entitlement granted');
    }
    return failed;
  }

  /**
   * Appends the facts recorded in streams of their own: an unmatched payment's `recorded` starts
   * its stream (`no_stream`: a redelivery finds its event id stored and appends nothing),
   * `matched` and `closed` follow it; a reconciliation run's records go to its run stream and an
   * exception's to its payment's exception stream. Answers that record nothing (declined,
   * unresolved) are skipped. A fact that cannot be appended is added to `failed` (dead-letter topic).
   *
   * @returns the facts appended now (not redeliveries).
   */
  private async recordUnmatched(
    session: LedgerSession,
    observations: readonly Observation[],
    failed: Array<{ index: number; error: unknown }>,
  ): Promise<Array<{ observed: Observation['observed']; type: string }>> {
    type Fact = { index: number; trace: TraceCarrier | undefined; observed: Observation['observed'] } & ReconciliationFact & { expected: 'any' | 'no_stream' };
    const facts = observations.flatMap((o): Fact[] => {
      if (o.kind === 'run') return [{ ...o, ...reconciliationRunFact(o.observed), expected: 'any' as const }];
      if (o.kind === 'exception') return [{ ...o, ...reconciliationExceptionFact(o.observed), expected: 'any' as const }];
      const event = unmatchedPaymentLedgerEvent(o.observed);
      if (!event) return [];
      const expected = event.type === UNMATCHED_PAYMENT_EVENT_TYPES.recorded ? ('no_stream' as const) : ('any' as const);
      return [{ ...o, streamId: unmatchedPaymentStream(o.observed.reference), event, expected }];
    });
    if (facts.length === 0) return [];
    const outcomes = await session.append(facts.map(({ streamId, event, expected, trace }) => ({ streamId, events: [event], expected, trace })));
    const appended: Array<{ observed: Observation['observed']; type: string }> = [];
    for (const [i, fact] of facts.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.status === 'rejected') failed.push({ index: fact.index, error: new PermanentMessageError(outcome.error.code, outcome.error.message) });
      else if (outcome.status === 'appended') appended.push({ observed: fact.observed, type: fact.event.type });
    }
    return appended;
  }

  /**
   * Decides and appends the grant each settlement causes: reads the entitlement streams'
   * histories (locked where the store locks), decides the settlements in batch order, each on
   * its stream's history plus the grants decided before it, and appends the grants. Nothing
   * for a checkout that bought no access period (registered before they existed), for a period
   * that breaks the rules (an alert), or for a reference already granted.
   *
   * @returns the grants appended.
   * @throws IsolateResults when a grant's event id is stored elsewhere (never, but then the
   *   batch is handled one result at a time and that settlement goes to the dead-letter topic);
   *   GrantRaceError when an entitlement stream moved on meanwhile (transient).
   */
  private async grant(session: LedgerSession, settlements: readonly Recorded[]): Promise<Array<{ reference: string; grant: EntitlementGranted }>> {
    const wanted = settlements.flatMap((a) => {
      const accessPeriod = this.accessPeriodOf(a.result, a.fresh);
      return accessPeriod ? [{ a, accessPeriod, stream: entitlementStream(a.result.user_id, a.result.entitlement) }] : [];
    });
    if (wanted.length === 0) return [];
    const histories = new Map<string, EntitlementEvent[]>(
      [...(await session.readStreams(wanted.map((w) => w.stream)))].map(([id, events]) => [id, events.map(entitlementEventOf)]),
    );
    const decided = wanted.flatMap(({ a, accessPeriod, stream }) => {
      const settlementEventId = a.ledgerEvent.eventId;
      const history = histories.get(stream) ?? [];
      histories.set(stream, history);
      const state = foldEntitlement(history);
      const granted = decideGrant(
        {
          type: 'GrantEntitlement',
          data: {
            eventId: deterministicId('EntitlementGranted', settlementEventId),
            userId: a.result.user_id,
            entitlement: a.result.entitlement,
            reference: a.result.reference,
            accessPeriod,
            settledAt: a.result.occurred_at,
          },
        },
        state,
      )[0];
      if (!granted) return [];
      history.push(granted);
      return [
        {
          reference: a.result.reference,
          stream,
          grant: granted,
          append: {
            streamId: stream,
            events: [entitlementLedgerEvent(granted, { settlementEventId, correlationId: a.result.correlation_id })],
            expected: expectedAfter(state.streamLength),
            trace: a.trace,
          },
        },
      ];
    });
    const outcomes = await session.append(decided.map((d) => d.append));
    const appended: Array<{ reference: string; grant: EntitlementGranted }> = [];
    for (const [i, d] of decided.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.status === 'rejected') {
        if (outcome.error instanceof DuplicateEventIdError) throw new IsolateResults();
        throw new GrantRaceError(d.stream);
      }
      if (outcome.status === 'appended') appended.push({ reference: d.reference, grant: d.grant });
    }
    return appended;
  }

  /** The access period a settlement bought, or `null` (logged once, when first recorded) when it grants nothing. */
  private accessPeriodOf(result: ConsensusResultV1, fresh: boolean): AccessPeriod | null {
    const log = this.logger.child({ reference: result.reference });
    if (result.access_period === null) {
      if (fresh) log.warn('settled without an access period (registered before they existed): no entitlement granted');
      return null;
    }
    try {
      return parseAccessPeriod(result.access_period);
    } catch (error) {
      // Registrations are checked at the API and by the verifier, so this is a contract breach.
      // The settlement is the money truth and is recorded; the grant is not, loudly.
      if (fresh) {
        log.error(
          { alert: 'SETTLE_GRANT_NOT_RECORDED', accessPeriod: result.access_period, err: error },
          'settled with an invalid access period: the settlement is recorded, no entitlement granted; check the registration',
        );
      }
      return null;
    }
  }
}
