import { decideGrant, foldEntitlement, parseAccessPeriod, type AccessPeriod, type EntitlementGranted } from '@settle/domain';
import {
  entitlementEventOf,
  entitlementLedgerEvent,
  entitlementRowOf,
  entitlementStream,
  expectedAfter,
  PostgresLedger,
  transactionStream,
  upsertEntitlement,
  upsertLatestVerification,
  upsertLedgerStatus,
  WrongExpectedRevisionError,
  DuplicateEventIdError,
  type AppendResult,
  type LedgerEventInput,
  type PreparedAppend,
} from '@settle/ledger';
import { Outbox, OutboxRelay, PermanentMessageError, type ConsensusResultV1, type MessageContext, type OutboxMessage, type TypedEvent } from '@settle/messaging';
import { deterministicId, inTransaction, type Logger, type Pool, type PoolClient } from '@settle/platform';

/**
 * Another settlement of the same user and entitlement was granted first (the entitlement
 * stream moved on between reading it and appending): transient, the message is retried and
 * the grant decided again on the stream as it now is.
 */
export class EntitlementStreamConflictError extends Error {
  readonly code = 'LEDGER.ENTITLEMENT_STREAM_CONFLICT';
  constructor(readonly streamId: string) {
    super(`Entitlement stream ${streamId} moved on concurrently; the grant is decided again`);
    this.name = 'EntitlementStreamConflictError';
  }
}

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

/**
 * The ledger projector. For each consensus result, in one PostgreSQL transaction:
 * appends the outcome to the transaction's ledger stream at the exact expected revision
 * (a redelivery finds its event id already stored and appends nothing), updates the read
 * models (the ledger status, a pure projection of the ledger, and the latest verification
 * answer), and enqueues `SettlementRecorded` in the outbox, so a
 * settlement is published if and only if it was committed to the ledger.
 *
 * A settlement also records the grant it causes, in the same transaction (docs/delivery.md,
 * "Grants are ledger facts"): `EntitlementGranted` appended to the stream of the user and
 * entitlement at its expected revision, decided by the pure rules of `@settle/domain` on that
 * stream's history, reflected in `read_model.entitlements`, and enqueued on the
 * entitlement-events topic keyed by user.
 *
 * Both appends are prepared (streams locked, checks, hashes) and the read models written before
 * either is written to the global chain: from the first write to the commit the ledger's head
 * is locked and every other append waits, so only the writes and the outbox come after it.
 */
export class ProjectionService {
  constructor(
    private readonly pool: Pool,
    private readonly ledger: PostgresLedger,
    private readonly outbox: Outbox,
    private readonly relay: Pick<OutboxRelay, 'wake'>,
    private readonly logger: Logger,
  ) {}

  async handle(event: TypedEvent, context: MessageContext): Promise<void> {
    if (event.type !== 'ConsensusResult') return;
    const result = event.payload;
    const log = this.logger.child({ reference: result.reference, topic: context.topic, partition: context.partition, offset: context.offset });
    const appended = await inTransaction(this.pool, async (client) => {
      await upsertLatestVerification(client, {
        reference: result.reference,
        verdict: result.verdict,
        trigger: result.trigger,
        causationId: result.causation_id,
        state: result.state_after,
        entitlementStatus: result.entitlement_status,
        decidedAt: new Date(result.occurred_at),
      });
      const ledgerEvent = result.ledger_event_type ? ledgerEventFor(result) : null;
      if (!ledgerEvent) return false;
      const stream = transactionStream(result.reference);
      const prepared = await permanent(() => this.ledger.prepareAppendWith(client, stream, [ledgerEvent], expectedAfter(result.ledger_expected_revision)));
      const revision = 'done' in prepared ? prepared.done.nextExpectedRevision : prepared.rows.at(-1)!.revision;
      await upsertLedgerStatus(client, {
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
      });
      if ('done' in prepared) return false; // a redelivery: stored, published, granted before
      const grant = result.outcome === 'SETTLED_CONSENSUS' ? await this.prepareGrant(client, result, ledgerEvent.eventId, log) : null;
      // Everything above needs only the streams' locks. From the first write to the commit the
      // global head is locked (every append waits for it), so only the writes and the outbox
      // rows that need their positions come after this point.
      const settled = await permanent(() => this.ledger.writePrepared(client, prepared));
      const granted = grant ? await permanent(() => this.ledger.writePrepared(client, grant.prepared)) : null;
      await this.outbox.enqueue(client, [
        ...(grant && granted ? [grant.message(granted)] : []),
        {
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
            ledger_stream: stream,
            ledger_revision: settled.nextExpectedRevision,
            ledger_position: settled.positions[0]!,
          },
        },
      ]);
      return true;
    });
    if (appended) {
      this.relay.wake();
      log.info({ outcome: result.outcome }, 'outcome committed to the ledger');
    }
  }

  /**
   * Decides the grant a settlement causes on its entitlement stream's history, prepares its
   * append under the stream's lock, and updates the entitlements read model; returns the
   * prepared append and how to build its outbox message once written. Nothing when the
   * checkout bought no access period (registered before they existed), when the period breaks
   * the rules (an alert), or when the reference was already granted.
   *
   * @throws EntitlementStreamConflictError when the stream moved on meanwhile (transient).
   */
  private async prepareGrant(
    client: PoolClient,
    result: ConsensusResultV1,
    settlementEventId: string,
    log: Logger,
  ): Promise<{ prepared: PreparedAppend; message: (written: AppendResult) => OutboxMessage } | null> {
    if (result.access_period === null) {
      log.warn('settled without an access period (registered before they existed): no entitlement granted');
      return null;
    }
    let accessPeriod: AccessPeriod;
    try {
      accessPeriod = parseAccessPeriod(result.access_period);
    } catch (error) {
      // Registrations are checked at the API and by the verifier, so this is a contract breach.
      // The settlement is the money truth and is recorded; the grant is not, loudly.
      log.error(
        { alert: 'SETTLE_GRANT_NOT_RECORDED', accessPeriod: result.access_period, err: error },
        'settled with an invalid access period: the settlement is recorded, no entitlement granted; check the registration',
      );
      return null;
    }
    const stream = entitlementStream(result.user_id, result.entitlement);
    const history = (await this.ledger.readStreamWith(client, stream)).map(entitlementEventOf);
    const state = foldEntitlement(history);
    const events = decideGrant(
      {
        type: 'GrantEntitlement',
        data: {
          eventId: deterministicId('EntitlementGranted', settlementEventId),
          userId: result.user_id,
          entitlement: result.entitlement,
          reference: result.reference,
          accessPeriod,
          settledAt: result.occurred_at,
        },
      },
      state,
    );
    const granted = events[0] as EntitlementGranted | undefined;
    if (!granted) return null;
    const ledgerEvent = entitlementLedgerEvent(granted, { settlementEventId, correlationId: result.correlation_id });
    let prepared;
    try {
      prepared = await this.ledger.prepareAppendWith(client, stream, [ledgerEvent], expectedAfter(state.grants));
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw new EntitlementStreamConflictError(stream);
      if (error instanceof DuplicateEventIdError) throw new PermanentMessageError(error.code, error.message);
      throw error;
    }
    if ('done' in prepared) return null;
    const d = ledgerEvent.data;
    await upsertEntitlement(client, entitlementRowOf({ data: d, revision: prepared.rows.at(-1)!.revision }));
    log.info({ userId: d.user_id, entitlement: d.entitlement, event: d.event, expiresAt: d.expires_at }, 'entitlement granted');
    return {
      prepared,
      message: (written) => ({
        type: 'EntitlementGranted',
        key: d.user_id,
        causationId: settlementEventId,
        payload: {
          event_id: d.event_id,
          occurred_at: result.occurred_at,
          correlation_id: result.correlation_id,
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

/** Runs a ledger call, turning the errors no retry can fix into permanent ones (the dead-letter topic). */
async function permanent<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError || error instanceof DuplicateEventIdError) throw new PermanentMessageError(error.code, error.message);
    throw error;
  }
}
