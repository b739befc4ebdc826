import {
  decideGrant,
  decideMismatchResolution,
  DomainError,
  foldEntitlement,
  parseAccessPeriod,
  resolutionAfter,
  type AccessPeriod,
  type EntitlementGranted,
  type MismatchResolutionEvent,
  type ResolveMismatch,
} from '@settle/domain';
import {
  DuplicateEventIdError,
  entitlementEventOf,
  entitlementLedgerEvent,
  entitlementStream,
  expectedAfter,
  mismatchResolutionLedgerEvent,
  transactionStream,
  type AppendOutcome,
  type LedgerSession,
  type StreamAppend,
} from '@settle/ledger';
import { PermanentMessageError, type MismatchResolutionRequestedV1 } from '@settle/messaging';
import { deterministicId, type Logger, type TraceCarrier } from '@settle/platform';
import { StreamMovedOn } from './after-settlement.js';
import { mismatchCaseOf, paymentOf, resolutionContextOf, type Payment } from './transaction-history.js';

/** A `MismatchResolutionRequested` of the batch: an operator's resolution of a State Mismatch. */
export interface RequestedResolution {
  index: number;
  requested: MismatchResolutionRequestedV1;
  trace: TraceCarrier | undefined;
}

/** What one session of {@link MismatchResolutionProjection.project} recorded. */
export interface ResolutionsRecorded {
  /** Resolution facts appended, by reference. */
  facts: Array<{ reference: string; event: MismatchResolutionEvent }>;
  /** Grants of State Mismatches accepted as paid. */
  grants: EntitlementGranted[];
  /** Requests the ledger refuses (not a State Mismatch, resolved otherwise, money returned), for the dead-letter topic. */
  failed: Array<{ index: number; error: unknown }>;
}

/** The domain command a request stands for. */
function commandOf(r: MismatchResolutionRequestedV1): ResolveMismatch {
  if (r.resolution === 'accept_as_paid') {
    if (r.proposal_id === null || r.proposed_by === null || r.approved_by === null || r.note === null) {
      throw new PermanentMessageError('MISMATCH.INCOMPLETE_OVERRIDE', 'accept_as_paid names no proposal, proposer, approver or note');
    }
    return {
      type: 'AcceptAsPaid',
      data: { proposalId: r.proposal_id, proposedBy: r.proposed_by, approvedBy: r.approved_by, note: r.note, decidedAt: r.occurred_at },
    };
  }
  if (r.closed_by === null) throw new PermanentMessageError('MISMATCH.INCOMPLETE_CLOSE', 'refund_due names no admin who closed it');
  return { type: 'CloseRefundDue', data: { closedBy: r.closed_by, note: r.note, decidedAt: r.occurred_at } };
}

/**
 * Operators' resolutions of State Mismatches, in the ledger (docs/state-machine.md, "Resolving a
 * State Mismatch"). For each `MismatchResolutionRequested` of a batch, in one session of the
 * ledger store:
 * - the transaction stream is read (locked where the store locks) and the request decided by
 *   `decideMismatchResolution` (libs/domain): it must be in State Mismatch, not resolved
 *   otherwise, and (to accept it) no money gone back; the facts are appended at the stream's exact
 *   revision, after its outcome, which they never change;
 * - `SettledByOverride` grants the entitlement the checkout bought (`EntitlementGranted` on the
 *   user's entitlement stream, settled at the decision's time), as a settlement does; the rules
 *   grant a reference once, so a redelivery (also after an event store committed the fact but not
 *   the grant) appends the grant once.
 *
 * Ids derive from the request's `event_id`. A request the rules refuse goes to the dead-letter
 * topic with the rule's code (the console and ingestion check the same rules first, so this is a
 * race between two operators).
 */
export class MismatchResolutionProjection {
  constructor(private readonly logger: Logger) {}

  /**
   * Decides and appends, within `session`, what the requests of a batch record.
   *
   * @throws store errors, and {@link StreamMovedOn} when a stream moved on between its read and
   *   its append (transient: the batch is retried and decides again).
   */
  async project(session: LedgerSession, items: readonly RequestedResolution[]): Promise<ResolutionsRecorded> {
    const recorded: ResolutionsRecorded = { facts: [], grants: [], failed: [] };
    if (items.length === 0) return recorded;
    const references = [...new Set(items.map((i) => i.requested.reference))];
    const streams = await session.readStreams(references.map(transactionStream));
    const payments = new Map(references.map((r) => [r, paymentOf(r, streams.get(transactionStream(r)) ?? [])]));
    const appends: Array<StreamAppend & { index: number }> = [];
    const overrides: Array<{ item: RequestedResolution; payment: Payment; overrideId: string }> = [];
    for (const item of items) {
      const { index, requested, trace } = item;
      const payment = payments.get(requested.reference) ?? null;
      try {
        if (!payment) throw new DomainError('MISMATCH.NOT_STATE_MISMATCH', 'The ledger holds no State Mismatch of this payment', 'conflict');
        const events = decideMismatchResolution(commandOf(requested), mismatchCaseOf(payment));
        const ids = { requestId: requested.event_id, correlationId: requested.correlation_id, causationId: requested.event_id };
        const ledgerEvents = events.map((event) =>
          mismatchResolutionLedgerEvent(
            event,
            resolutionContextOf(payment, {
              ...ids,
              eventId: deterministicId('MismatchResolution', requested.event_id, event.type),
              accessPeriod: requested.access_period,
            }),
          ),
        );
        if (ledgerEvents.length > 0) {
          appends.push({ index, streamId: transactionStream(requested.reference), events: ledgerEvents, expected: expectedAfter(payment.length), trace });
          payment.length += ledgerEvents.length;
          for (const event of events) recorded.facts.push({ reference: requested.reference, event });
          payment.resolution = resolutionAfter(events.at(-1)!);
          payment.resolutionRequestId = requested.event_id;
        }
        // Granted now, or again for a redelivery of the request that recorded the override.
        if (payment.resolution === 'accepted_as_paid' && payment.resolutionRequestId === requested.event_id) {
          overrides.push({ item, payment, overrideId: deterministicId('MismatchResolution', requested.event_id, 'SettledByOverride') });
        }
      } catch (error) {
        if (!(error instanceof DomainError) && !(error instanceof PermanentMessageError)) throw error;
        recorded.failed.push({ index, error: error instanceof DomainError ? new PermanentMessageError(error.code, error.message) : error });
      }
    }
    // The facts first, then the grants of the overrides whose fact is stored: on an event store the
    // two appends are not one commit, and a grant must never stand without its override.
    const refused = this.settle(await session.append(appends), appends, recorded);
    const grants = await this.decideGrants(
      session,
      overrides.filter((o) => !refused.has(o.item.index)),
      recorded,
    );
    this.settle(await session.append(grants), grants, recorded);
    return recorded;
  }

  /**
   * Reads the outcomes of appends: an event id stored in another stream can never be appended
   * (its request goes to the dead-letter topic); another writer moving a stream on is transient.
   *
   * @returns the indexes of the requests refused.
   * @throws StreamMovedOn for a stream that moved on (the batch is retried and decides again).
   */
  private settle(outcomes: readonly AppendOutcome[], appends: ReadonlyArray<StreamAppend & { index: number }>, recorded: ResolutionsRecorded): Set<number> {
    const refused = new Set<number>();
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status !== 'rejected') continue;
      const append = appends[i]!;
      if (!(outcome.error instanceof DuplicateEventIdError)) throw new StreamMovedOn(append.streamId, outcome.error);
      refused.add(append.index);
      recorded.failed.push({ index: append.index, error: new PermanentMessageError('LEDGER.DUPLICATE_EVENT_ID', outcome.error.message) });
    }
    return refused;
  }

  /**
   * The grants of State Mismatches accepted as paid, decided on their entitlement streams read now
   * (docs/delivery.md, "Grants are ledger facts"); nothing for a checkout that bought no access
   * period (logged), or for a reference granted already.
   */
  private async decideGrants(
    session: LedgerSession,
    overrides: ReadonlyArray<{ item: RequestedResolution; payment: Payment; overrideId: string }>,
    recorded: ResolutionsRecorded,
  ): Promise<Array<StreamAppend & { index: number }>> {
    const wanted = overrides.flatMap((o) => {
      const period = o.item.requested.access_period;
      if (period === null) {
        this.logger.warn({ reference: o.item.requested.reference }, 'accepted as paid without an access period: no entitlement granted');
        return [];
      }
      let accessPeriod: AccessPeriod;
      try {
        accessPeriod = parseAccessPeriod(period);
      } catch (error) {
        // Ingestion checked it at registration: a contract breach. The override is recorded; the grant is not, loudly.
        this.logger.error(
          { reference: o.item.requested.reference, alert: 'SETTLE_GRANT_NOT_RECORDED', accessPeriod: period, err: error },
          'accepted as paid with an invalid access period: no entitlement granted',
        );
        return [];
      }
      const { user_id: userId, entitlement } = o.payment.outcome.expected;
      return [{ ...o, accessPeriod, stream: entitlementStream(userId, entitlement), userId, entitlement }];
    });
    if (wanted.length === 0) return [];
    const read = await session.readStreams([...new Set(wanted.map((w) => w.stream))]);
    const histories = new Map([...read].map(([id, events]) => [id, events.map(entitlementEventOf)]));
    return wanted.flatMap(({ item, overrideId, accessPeriod, stream, userId, entitlement }) => {
      const history = histories.get(stream) ?? [];
      histories.set(stream, history);
      const state = foldEntitlement(history);
      const [granted] = decideGrant(
        {
          type: 'GrantEntitlement',
          data: {
            eventId: deterministicId('EntitlementGranted', overrideId),
            userId,
            entitlement,
            reference: item.requested.reference,
            accessPeriod,
            settledAt: item.requested.occurred_at,
          },
        },
        state,
      );
      if (!granted) return [];
      history.push(granted);
      recorded.grants.push(granted);
      const event = entitlementLedgerEvent(granted, { settlementEventId: overrideId, correlationId: item.requested.correlation_id });
      return [{ index: item.index, streamId: stream, events: [event], expected: expectedAfter(state.streamLength), trace: item.trace }];
    });
  }
}
