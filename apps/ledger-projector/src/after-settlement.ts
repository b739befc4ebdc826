import {
  closeRefundDue,
  decideMoneyMovement,
  evolveMoney,
  decideReinstate,
  decideRevoke,
  DEFAULT_ACCESS_POLICY,
  foldEntitlement,
  grantInForce,
  moneyStateOf,
  type AccessPolicy,
  type EntitlementEvent,
  type EntitlementReinstated,
  type EntitlementRevoked,
  type MoneyMovementEvent,
  type MoneyMovementObservation,
} from '@settle/domain';
import {
  accessChangeLedgerEvent,
  DuplicateEventIdError,
  entitlementEventOf,
  entitlementStream,
  expectedAfter,
  mismatchResolutionLedgerEvent,
  moneyMovementLedgerEvent,
  transactionStream,
  type LedgerEventInput,
  type LedgerSession,
  type StreamAppend,
} from '@settle/ledger';
import { PermanentMessageError, type MoneyMovementsObservedV1 } from '@settle/messaging';
import { deterministicId, type Logger, type TraceCarrier } from '@settle/platform';
import { mismatchCaseOf, paymentOf, resolutionContextOf, type Payment } from './transaction-history.js';

/** A `MoneyMovementsObserved` of the batch: what the verifier read of a settled payment's refunds, disputes and reversal. */
export interface ObservedMovements {
  index: number;
  observed: MoneyMovementsObservedV1;
  trace: TraceCarrier | undefined;
}

/** What one session of {@link AfterSettlementProjection.project} recorded. */
export interface MoneyRecorded {
  /** Money facts appended, by reference. */
  facts: Array<{ reference: string; event: MoneyMovementEvent }>;
  /** Revocations and reinstatements appended. */
  changes: Array<EntitlementRevoked | EntitlementReinstated>;
  /** References whose refund-due State Mismatch the facts closed. */
  closed: string[];
  /** Messages that can never be recorded (their payment's stream is not what a money fact can follow), for the dead-letter topic. */
  failed: Array<{ index: number; error: unknown }>;
}

/** A payment whose grant one observation's money facts may change. */
interface WantedChange {
  payment: Payment;
  /** The last money fact of the observation (stored before by the same message, or decided now): the change's cause and the source of its id. */
  causeId: string;
  at: number;
  correlationId: string;
  trace: TraceCarrier | undefined;
}

/** The domain observation a wire record stands for. */
function observationOf(m: MoneyMovementsObservedV1['movements'][number]): MoneyMovementObservation | null {
  const base = {
    providerId: m.provider_id,
    paymentReference: m.payment_reference,
    amountMinor: m.amount_minor,
    currency: m.currency,
    providerStatus: m.provider_status,
    createdAt: m.created_at,
  };
  switch (m.kind) {
    case 'reversal':
      return { ...base, kind: 'reversal' };
    case 'refund':
      return m.status === 'pending' || m.status === 'succeeded' || m.status === 'failed' ? { ...base, kind: 'refund', status: m.status } : null;
    case 'dispute':
      return m.status === 'open' || m.status === 'won' || m.status === 'lost' ? { ...base, kind: 'dispute', status: m.status, reason: m.reason } : null;
  }
}

/**
 * The money after settlement, in the ledger (docs/state-machine.md, "The money after settlement";
 * docs/delivery.md, "Access follows the money"). For each `MoneyMovementsObserved` of a batch, in
 * one session of the ledger store:
 * - the payment's transaction stream is read (locked where the store locks): its outcome gives
 *   what was captured (the amount and currency the provider confirmed when it settled, or when a
 *   State Mismatch was detected), its money facts so far the payment's money;
 * - each observation is decided by `decideMoneyMovement` (the checks first: the object names this
 *   payment, its currency, never more returned than captured) and the facts are appended to the
 *   transaction stream at its exact revision, after the outcome, which they never change;
 * - a fact that takes the grant out of force (a full refund, a reversal, a lost dispute; a
 *   partial refund or an opened dispute as the entitlement's {@link AccessPolicy} says) revokes it:
 *   `EntitlementRevoked` on the user's entitlement stream, with the expiry recomputed from the
 *   grants still in force; one that puts it back in force reinstates it.
 *
 * A payment that never settled (no settled or State Mismatch outcome in its stream) records
 * nothing: its money facts have nothing to follow (logged).
 */
export class AfterSettlementProjection {
  constructor(
    private readonly logger: Logger,
    private readonly policies: Readonly<Record<string, Partial<AccessPolicy>>> = {},
  ) {}

  /** The access policy of an entitlement: its configured fields over the defaults. */
  policyOf(entitlement: string): AccessPolicy {
    return { ...DEFAULT_ACCESS_POLICY, ...this.policies[entitlement] };
  }

  /**
   * Decides and appends, within `session`, what the observations of a batch record.
   *
   * @throws store errors (transient), and PermanentMessageError-free `Error`s when a stream moved
   *   on between its read and its append (transient: the batch is retried and decides again).
   */
  async project(session: LedgerSession, items: readonly ObservedMovements[]): Promise<MoneyRecorded> {
    const recorded: MoneyRecorded = { facts: [], changes: [], closed: [], failed: [] };
    if (items.length === 0) return recorded;
    const references = [...new Set(items.map((i) => i.observed.reference))];
    const streams = await session.readStreams(references.map(transactionStream));
    const payments = new Map<string, Payment | null>(references.map((r) => [r, paymentOf(r, streams.get(transactionStream(r)) ?? [])]));

    const appends = new Map<string, StreamAppend & { events: LedgerEventInput[] }>();
    /** Items by the streams they append to, to dead-letter them when an append can never be. */
    const itemsOf = new Map<string, number[]>();
    const wanted: WantedChange[] = [];
    for (const { index, observed, trace } of items) {
      const payment = payments.get(observed.reference);
      if (!payment) {
        this.logger.warn(
          { reference: observed.reference, trigger: observed.trigger },
          'refunds or disputes read for a payment the ledger holds no settlement of; nothing recorded',
        );
        continue;
      }
      if (payment.outcome.provider !== observed.provider) {
        recorded.failed.push({
          index,
          error: new PermanentMessageError('LEDGER.PROVIDER_MISMATCH', "the money was read from another provider than the payment's"),
        });
        continue;
      }
      // The facts this message recorded in an earlier session (a redelivery after an event store
      // committed them but not the access change) count as its own: the access follows them too.
      const mine = payment.stored.filter((f) => f.causationId === observed.event_id);
      let causeId = mine.filter((f) => !f.rejected).at(-1)?.eventId ?? null;
      const stream = transactionStream(observed.reference);
      itemsOf.set(stream, [...(itemsOf.get(stream) ?? []), index]);
      for (const movement of observed.movements) {
        const observation = observationOf(movement);
        if (!observation) continue;
        const events = decideMoneyMovement(
          {
            type: 'RecordMoneyMovement',
            data: {
              reference: observed.reference,
              verificationId: observed.verification_id,
              trigger: observed.trigger,
              observation,
              decidedAt: observed.occurred_at,
            },
          },
          payment.money,
        );
        for (const event of events) {
          payment.money = evolveMoney(payment.money, event);
          const status = event.type === 'MoneyMovementRejected' ? `:${event.data.status}` : '';
          const ledgerEvent = moneyMovementLedgerEvent(event, {
            provider: payment.outcome.provider,
            userId: payment.outcome.expected.user_id,
            entitlement: payment.outcome.expected.entitlement,
            eventId: deterministicId('MoneyFact', observed.reference, `${event.type}:${event.data.providerId}${status}`),
            correlationId: observed.correlation_id,
            causationId: observed.event_id,
          });
          const append = appends.get(stream) ?? { streamId: stream, events: [], expected: expectedAfter(payment.length), trace };
          append.events.push(ledgerEvent);
          appends.set(stream, append);
          if (event.type !== 'MoneyMovementRejected') causeId = ledgerEvent.eventId;
          recorded.facts.push({ reference: observed.reference, event });
        }
      }
      this.closeRefundDue(payment, observed, appends, recorded, trace);
      // Only an observation that recorded money facts (now, or in an earlier session of the same
      // message) changes the access, to what the whole money says under today's policy: a policy
      // change applies from the next fact recorded, never to a re-read of facts recorded before.
      if (payment.granted && causeId !== null) wanted.push({ payment, causeId, at: observed.occurred_at, correlationId: observed.correlation_id, trace });
    }
    const moneyAppends = [...appends.values()];
    const accessAppends = await this.decideAccess(session, wanted, recorded, itemsOf);
    const all = [...moneyAppends, ...accessAppends];
    const outcomes = await session.append(all);
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status !== 'rejected') continue;
      const append = all[i]!;
      // An event id stored in another stream can never be appended: those messages go to the
      // dead-letter topic. Another writer moving the stream on is transient: the batch is retried.
      if (!(outcome.error instanceof DuplicateEventIdError)) throw new StreamMovedOn(append.streamId, outcome.error);
      for (const index of itemsOf.get(append.streamId) ?? []) {
        recorded.failed.push({ index, error: new PermanentMessageError('LEDGER.DUPLICATE_EVENT_ID', outcome.error.message) });
      }
    }
    return recorded;
  }

  /**
   * Closes a refund-due State Mismatch whose captured money the facts so far return in whole
   * (docs/state-machine.md, "Resolving a State Mismatch"): `MismatchRefundDueClosed` follows them in
   * the same append, its id derived from the reference (a stream closes once).
   */
  private closeRefundDue(
    payment: Payment,
    observed: MoneyMovementsObservedV1,
    appends: Map<string, StreamAppend & { events: LedgerEventInput[] }>,
    recorded: MoneyRecorded,
    trace: TraceCarrier | undefined,
  ): void {
    const closing = closeRefundDue(mismatchCaseOf(payment), observed.occurred_at);
    if (!closing || payment.resolutionRequestId === null) return;
    payment.resolution = 'refunded';
    const stream = transactionStream(observed.reference);
    const append = appends.get(stream) ?? { streamId: stream, events: [], expected: expectedAfter(payment.length), trace };
    append.events.push(
      mismatchResolutionLedgerEvent(
        closing,
        resolutionContextOf(payment, {
          requestId: payment.resolutionRequestId,
          eventId: deterministicId('MismatchRefundDueClosed', observed.reference),
          correlationId: observed.correlation_id,
          causationId: observed.event_id,
        }),
      ),
    );
    appends.set(stream, append);
    recorded.closed.push(observed.reference);
  }

  /**
   * Brings the grant of each payment whose money an observation recorded in line with that money,
   * on the entitlement streams read now (before any append to them): a grant that should no longer
   * be in force ({@link grantInForce} under the entitlement's policy today) and is not revoked is
   * revoked; one revoked that should be in force again is reinstated. The ids derive from the
   * observation's last money fact, and the deciders change nothing already done, so a redelivery
   * (also after an event store committed the facts but not the change) appends the change once.
   */
  private async decideAccess(
    session: LedgerSession,
    wanted: readonly WantedChange[],
    recorded: MoneyRecorded,
    itemsOf: Map<string, number[]>,
  ): Promise<StreamAppend[]> {
    if (wanted.length === 0) return [];
    const streamOf = (p: Payment) => entitlementStream(p.outcome.expected.user_id, p.outcome.expected.entitlement);
    const read = await session.readStreams([...new Set(wanted.map((w) => streamOf(w.payment)))]);
    const histories = new Map<string, EntitlementEvent[]>([...read].map(([id, events]) => [id, events.map(entitlementEventOf)]));
    const appends = new Map<string, StreamAppend & { events: ReturnType<typeof accessChangeLedgerEvent>[] }>();
    for (const { payment, causeId, at, correlationId, trace } of wanted) {
      const stream = streamOf(payment);
      const history = histories.get(stream) ?? [];
      const state = foldEntitlement(history);
      const reference = payment.outcome.reference;
      const moneyState = moneyStateOf(payment.money);
      const inForce = grantInForce(payment.money, this.policyOf(payment.outcome.expected.entitlement));
      const revoked = state.revoked.has(reference);
      if (inForce !== revoked) continue;
      const decided = !inForce
        ? decideRevoke(
            {
              type: 'RevokeEntitlement',
              data: {
                eventId: deterministicId('EntitlementRevoked', causeId),
                reference,
                reason: moneyState === 'none' ? 'partially_refunded' : moneyState,
                revokedAt: at,
              },
            },
            state,
          )
        : decideReinstate(
            { type: 'ReinstateEntitlement', data: { eventId: deterministicId('EntitlementReinstated', causeId), reference, reinstatedAt: at } },
            state,
          );
      for (const decidedChange of decided) {
        const append = appends.get(stream) ?? { streamId: stream, events: [], expected: expectedAfter(state.streamLength), trace };
        append.events.push(accessChangeLedgerEvent(decidedChange, { moneyEventId: causeId, correlationId }));
        appends.set(stream, append);
        history.push(decidedChange);
        histories.set(stream, history);
        recorded.changes.push(decidedChange);
        itemsOf.set(stream, [...(itemsOf.get(stream) ?? []), ...(itemsOf.get(transactionStream(reference)) ?? [])]);
      }
    }
    return [...appends.values()];
  }
}

/**
 * A stream moved on between its read and its append (another writer; possible on an event store,
 * where streams are not locked): transient, the batch is retried and decides again.
 */
export class StreamMovedOn extends Error {
  constructor(stream: string, cause: unknown) {
    super(`ledger stream ${stream} moved on while its money facts were decided; retrying`, { cause });
    this.name = 'StreamMovedOn';
  }
}
