import { decideGrant, foldEntitlement, parseAccessPeriod, type AccessPeriod, type EntitlementEvent } from '@settle/domain';
import {
  entitlementEventOf,
  entitlementLedgerEvent,
  entitlementRowOf,
  entitlementStream,
  expectedAfter,
  PostgresLedger,
  transactionStream,
  upsertEntitlements,
  upsertLatestVerifications,
  upsertLedgerStatuses,
  type AppendResult,
  type EntitlementRow,
  type LedgerEventInput,
  type LedgerStatusRow,
  type PreparedAppend,
} from '@settle/ledger';
import {
  Outbox,
  OutboxRelay,
  PermanentMessageError,
  type BatchItem,
  type ConsensusResultV1,
  type MessageContext,
  type OutboxMessage,
  type TypedEvent,
} from '@settle/messaging';
import { deterministicId, inTransaction, type Logger, type Pool, type PoolClient } from '@settle/platform';

/** The ledger event recorded for a consensus result that changed the state. */
export function ledgerEventFor(result: ConsensusResultV1): LedgerEventInput {
  return {
    // Derived from the result's identity: a redelivered result appends nothing new.
    eventId: deterministicId('LedgerEvent', result.event_id),
    type: result.ledger_event_type!,
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

/** A consensus result of the batch whose outcome is appended, with where it stands. */
interface Appended {
  index: number;
  result: ConsensusResultV1;
  ledgerEvent: LedgerEventInput;
  prepared: PreparedAppend;
  grant: { prepared: PreparedAppend; row: EntitlementRow; message: (written: AppendResult) => OutboxMessage } | null;
}

/** One result of the batch could not be granted: the batch is handled again one result at a time. */
class IsolateResults extends Error {
  constructor() {
    super('a grant of the batch cannot be appended; the batch is handled one result at a time');
    this.name = 'IsolateResults';
  }
}

/**
 * The ledger projector, batch first: the consensus results of one Kafka batch (one partition,
 * in offset order) are projected in one PostgreSQL transaction. For each result: its
 * outcome is appended to the transaction's ledger stream at the exact expected revision (a
 * redelivery finds its event id already stored and appends nothing), the read models are
 * updated (the ledger status, a pure projection of the ledger, and the latest verification
 * answer), and `SettlementRecorded` is enqueued in the outbox, so a settlement is published if
 * and only if it was committed to the ledger.
 *
 * A settlement also records the grant it causes, in the same transaction (docs/delivery.md,
 * "Grants are ledger facts"): `EntitlementGranted` appended to the stream of the user and
 * entitlement, decided by the pure rules of `@settle/domain` on that stream's history read
 * under the stream's lock (grants of the same stream in one batch see each other in order),
 * reflected in `read_model.entitlements`, and enqueued on the entitlement-events topic keyed by
 * user.
 *
 * The batch costs a fixed number of statements whatever its size: one upsert per read model,
 * one lock statement and one look-up per kind of stream, one read of the entitlement streams'
 * histories, one write of every event into the global chain (`ledger.append_batch`, under one
 * lock of the head, taken last and held only until the commit), and one outbox insert. A
 * result whose append cannot be (a wrong expected revision, an event id stored elsewhere)
 * fails alone, to the dead-letter topic; the rest of the batch commits.
 */
export class ProjectionService {
  constructor(
    private readonly pool: Pool,
    private readonly ledger: PostgresLedger,
    private readonly outbox: Outbox,
    private readonly relay: Pick<OutboxRelay, 'wake'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Projects one consensus result: a batch of one.
   *
   * @throws PermanentMessageError when its append can never be; database errors (transient).
   */
  async handle(event: TypedEvent, context: MessageContext): Promise<void> {
    const [failed] = await this.handleBatch([{ event, context }]);
    if (failed) throw failed.error;
  }

  /**
   * Projects the consensus results of one fetched batch in one transaction; resolves once
   * committed. Other message types are ignored.
   *
   * @returns the results whose append can never be (PermanentMessageError with the ledger's
   *   code), by index, for the dead-letter topic.
   * @throws database errors (transient: the batch is retried, and redeliveries append nothing twice).
   */
  async handleBatch(items: readonly BatchItem[]): Promise<Array<{ index: number; error: unknown }>> {
    // A result published twice by a relay retry may arrive twice in one batch: the later copy
    // is the same message, projected once here (and found stored if it comes in a later batch).
    const seen = new Set<string>();
    const results = items.flatMap(({ event }, index) => {
      if (event.type !== 'ConsensusResult' || seen.has(event.payload.event_id)) return [];
      seen.add(event.payload.event_id);
      return [{ index, result: event.payload }];
    });
    if (results.length === 0) return [];
    try {
      return await this.project(results);
    } catch (error) {
      if (!(error instanceof IsolateResults) || results.length === 1) throw error;
      // Rare (a grant's event id stored elsewhere): one transaction per result, so the one that
      // cannot be granted goes to the dead-letter topic with nothing of it committed.
      const failed: Array<{ index: number; error: unknown }> = [];
      for (const one of results) {
        try {
          failed.push(...(await this.project([one])));
        } catch (single) {
          if (!(single instanceof IsolateResults)) throw single;
          failed.push({ index: one.index, error: new PermanentMessageError('LEDGER.DUPLICATE_EVENT_ID', 'the grant of this settlement is stored elsewhere') });
        }
      }
      return failed;
    }
  }

  private async project(results: ReadonlyArray<{ index: number; result: ConsensusResultV1 }>): Promise<Array<{ index: number; error: unknown }>> {
    const failed: Array<{ index: number; error: unknown }> = [];
    const appended = await inTransaction(this.pool, async (client) => {
      await upsertLatestVerifications(
        client,
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
      const changes = results.flatMap(({ index, result }) => (result.ledger_event_type ? [{ index, result, ledgerEvent: ledgerEventFor(result) }] : []));
      const outcomes = await this.ledger.prepareAppendsWith(
        client,
        changes.map(({ result, ledgerEvent }) => ({
          streamId: transactionStream(result.reference),
          events: [ledgerEvent],
          expected: expectedAfter(result.ledger_expected_revision),
        })),
      );
      const statuses: LedgerStatusRow[] = [];
      const fresh: Appended[] = [];
      for (const [i, change] of changes.entries()) {
        const outcome = outcomes[i]!;
        if ('error' in outcome) {
          failed.push({ index: change.index, error: new PermanentMessageError(outcome.error.code, outcome.error.message) });
          continue;
        }
        statuses.push(statusRow(change.result, 'done' in outcome ? outcome.done.nextExpectedRevision : outcome.rows.at(-1)!.revision));
        // A redelivery appends nothing: it was stored, published and granted before.
        if (!('done' in outcome)) fresh.push({ ...change, prepared: outcome, grant: null });
      }
      await upsertLedgerStatuses(client, statuses);
      await this.prepareGrants(
        client,
        fresh.filter((a) => a.result.outcome === 'SETTLED_CONSENSUS'),
      );
      await upsertEntitlements(
        client,
        fresh.flatMap((a) => (a.grant ? [a.grant.row] : [])),
      );

      // Everything above needs only the streams' locks. From here to the commit the global head
      // is locked (every append waits for it): only the chain's write and the outbox remain.
      const written = await this.ledger.writePreparedMany(
        client,
        fresh.flatMap((a) => (a.grant ? [a.prepared, a.grant.prepared] : [a.prepared])),
      );
      const messages: OutboxMessage[] = [];
      let next = 0;
      for (const a of fresh) {
        const settled = written[next++]!;
        if (a.grant) messages.push(a.grant.message(written[next++]!));
        messages.push(settlementMessage(a.result, settled));
      }
      await this.outbox.enqueue(client, messages);
      return fresh;
    });
    if (appended.length > 0) this.relay.wake();
    for (const a of appended) {
      this.logger.info({ reference: a.result.reference, outcome: a.result.outcome }, 'outcome committed to the ledger');
      if (a.grant) {
        const d = a.grant.row;
        this.logger.info(
          { reference: a.result.reference, userId: d.userId, entitlement: d.entitlement, event: d.lastEvent, expiresAt: d.expiresAt },
          'entitlement granted',
        );
      }
    }
    return failed;
  }

  /**
   * Decides the grant each settlement causes and prepares its append: locks the entitlement
   * streams, reads their histories under the locks, and decides the settlements in batch
   * order, each on its stream's history plus the grants decided before it. Nothing for a
   * checkout that bought no access period (registered before they existed), for a period
   * that breaks the rules (an alert), or for a reference already granted.
   *
   * @throws IsolateResults when a grant's event id is stored elsewhere (never, but then the
   *   batch is handled one result at a time and that settlement goes to the dead-letter topic).
   */
  private async prepareGrants(client: PoolClient, settlements: Appended[]): Promise<void> {
    const wanted = settlements.flatMap((a) => {
      const accessPeriod = this.accessPeriodOf(a.result);
      return accessPeriod ? [{ a, accessPeriod, stream: entitlementStream(a.result.user_id, a.result.entitlement) }] : [];
    });
    if (wanted.length === 0) return;
    const streams = wanted.map((w) => w.stream);
    const locked = await this.ledger.lockStreams(client, streams);
    const histories = new Map<string, EntitlementEvent[]>(
      [...(await this.ledger.readStreamsWith(client, streams))].map(([id, events]) => [id, events.map(entitlementEventOf)]),
    );
    const grants = wanted.flatMap(({ a, accessPeriod, stream }) => {
      const settlementEventId = a.ledgerEvent.eventId;
      const history = histories.get(stream)!;
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
      return [{ a, stream, state, ledgerEvent: entitlementLedgerEvent(granted, { settlementEventId, correlationId: a.result.correlation_id }) }];
    });
    const stored = await this.ledger.findStoredEvents(
      client,
      grants.map((g) => g.ledgerEvent.eventId),
    );
    for (const { a, stream, state, ledgerEvent } of grants) {
      const outcome = this.ledger.prepareOn(locked, stored, { streamId: stream, events: [ledgerEvent], expected: expectedAfter(state.grants) });
      if ('error' in outcome) throw new IsolateResults();
      if ('done' in outcome) continue;
      const d = ledgerEvent.data;
      a.grant = {
        prepared: outcome,
        row: entitlementRowOf({ data: d, revision: outcome.rows.at(-1)!.revision }),
        message: (written) => ({
          type: 'EntitlementGranted',
          key: d.user_id,
          causationId: a.ledgerEvent.eventId,
          payload: {
            event_id: d.event_id,
            occurred_at: a.result.occurred_at,
            correlation_id: a.result.correlation_id,
            reference: d.reference,
            event: d.event,
            user_id: d.user_id,
            entitlement: d.entitlement,
            expires_at: d.expires_at,
            previous_expires_at: d.previous_expires_at,
            starts_at: d.starts_at,
            settled_at: d.settled_at,
            access_period: d.access_period,
            ledger_stream: stream,
            ledger_revision: written.nextExpectedRevision,
            ledger_position: written.positions[0]!,
          },
        }),
      };
    }
  }

  /** The access period a settlement bought, or `null` (logged) when it grants nothing. */
  private accessPeriodOf(result: ConsensusResultV1): AccessPeriod | null {
    const log = this.logger.child({ reference: result.reference });
    if (result.access_period === null) {
      log.warn('settled without an access period (registered before they existed): no entitlement granted');
      return null;
    }
    try {
      return parseAccessPeriod(result.access_period);
    } catch (error) {
      // Registrations are checked at the API and by the verifier, so this is a contract breach.
      // The settlement is the money truth and is recorded; the grant is not, loudly.
      log.error(
        { alert: 'SETTLE_GRANT_NOT_RECORDED', accessPeriod: result.access_period, err: error },
        'settled with an invalid access period: the settlement is recorded, no entitlement granted; check the registration',
      );
      return null;
    }
  }
}

/** The ledger-status row of a result whose outcome stands at `revision` of its stream. */
function statusRow(result: ConsensusResultV1, revision: number): LedgerStatusRow {
  return {
    reference: result.reference,
    provider: result.provider,
    state: result.state_after,
    entitlementStatus: result.entitlement_status,
    amountMinor: result.amount_minor,
    currency: result.currency,
    checks: result.checks.length > 0 ? result.checks : null,
    lastVerdict: result.verdict,
    lastTrigger: result.trigger,
    ledgerRevision: revision,
    updatedAt: new Date(result.occurred_at),
  };
}

/** The `SettlementRecorded` message of an outcome written to the ledger. */
function settlementMessage(result: ConsensusResultV1, settled: AppendResult): OutboxMessage {
  return {
    type: 'SettlementRecorded',
    causationId: result.event_id,
    payload: {
      event_id: deterministicId('SettlementRecorded', result.event_id),
      occurred_at: result.occurred_at,
      correlation_id: result.correlation_id,
      reference: result.reference,
      provider: result.provider,
      outcome: result.outcome,
      state: result.state_after,
      entitlement_status: result.entitlement_status,
      user_id: result.user_id,
      entitlement: result.entitlement,
      amount_minor: result.amount_minor,
      currency: result.currency,
      ledger_stream: transactionStream(result.reference),
      ledger_revision: settled.nextExpectedRevision,
      ledger_position: settled.positions[0]!,
    },
  };
}
