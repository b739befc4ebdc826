import {
  expectedAfter,
  PostgresLedger,
  transactionStream,
  upsertLatestVerification,
  upsertLedgerStatus,
  WrongExpectedRevisionError,
  DuplicateEventIdError,
  type LedgerEventInput,
} from '@settle/ledger';
import { Outbox, OutboxRelay, PermanentMessageError, type ConsensusResultV1, type MessageContext, type TypedEvent } from '@settle/messaging';
import { deterministicId, inTransaction, type Logger, type Pool } from '@settle/platform';

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
      let revision = result.ledger_expected_revision - 1;
      let appendedAt: number | null = null;
      let duplicate = false;
      if (result.ledger_event_type) {
        const stream = transactionStream(result.reference);
        try {
          const outcome = await this.ledger.appendWith(client, stream, [ledgerEventFor(result)], expectedAfter(result.ledger_expected_revision));
          revision = outcome.nextExpectedRevision;
          appendedAt = outcome.positions[0] ?? null;
          duplicate = outcome.duplicate;
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError || error instanceof DuplicateEventIdError) {
            throw new PermanentMessageError(error.code, error.message);
          }
          throw error;
        }
      }
      if (appendedAt !== null) {
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
      }
      await upsertLatestVerification(client, {
        reference: result.reference,
        verdict: result.verdict,
        trigger: result.trigger,
        causationId: result.causation_id,
        state: result.state_after,
        entitlementStatus: result.entitlement_status,
        decidedAt: new Date(result.occurred_at),
      });
      if (appendedAt !== null && !duplicate) {
        await this.outbox.enqueue(client, [
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
              ledger_stream: transactionStream(result.reference),
              ledger_revision: revision,
              ledger_position: appendedAt,
            },
          },
        ]);
        return true;
      }
      return false;
    });
    if (appended) {
      this.relay.wake();
      log.info({ outcome: result.outcome }, 'outcome committed to the ledger');
    }
  }
}
