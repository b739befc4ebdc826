import type { MoneyMovementObservation, ProviderName, TransactionStatus, VerificationTrigger } from '@settle/domain';
import type { MoneyMovementsObservedV1 } from '@settle/messaging';
import type { PaymentMovements } from '@settle/providers';

/**
 * The triggers that read a settled payment's refunds, disputes and reversal (docs/state-machine.md,
 * "The money after settlement"): a signed provider notification about its money (a refund or
 * dispute event), a rejected webhook (a spoofed refund notification is checked by REST, never
 * believed), and the reconciliation triggers. Only for a payment whose money arrived: settled,
 * or in State Mismatch (paid, though not as registered). Any other trigger of a terminal payment
 * asks the provider nothing, as before (a late `charge.success` for a settled payment costs no
 * call).
 *
 * @param movementNotification - the trigger is a signed webhook whose event type is one of the
 *   provider's money notifications.
 */
export function readsMovements(status: TransactionStatus, trigger: VerificationTrigger, movementNotification: boolean): boolean {
  if (status !== 'SETTLED_CONSENSUS' && status !== 'STATE_MISMATCH') return false;
  switch (trigger) {
    case 'webhook_received':
      return movementNotification;
    case 'webhook_signature_rejected':
    case 'admin_reconciliation':
    case 'reconciliation':
      return true;
    default:
      return false;
  }
}

/** The wire form of one observation (amounts in minor units, times epoch ms). */
function observationRecord(o: MoneyMovementObservation): MoneyMovementsObservedV1['movements'][number] {
  return {
    kind: o.kind,
    provider_id: o.providerId,
    payment_reference: o.paymentReference,
    amount_minor: o.amountMinor,
    currency: o.currency,
    provider_status: o.providerStatus,
    status: o.kind === 'reversal' ? null : o.status,
    reason: o.kind === 'dispute' ? o.reason : null,
    created_at: o.createdAt,
  };
}

/** The `MoneyMovementsObserved` record of one read of a payment's refunds, disputes and reversal. */
export function moneyMovementsObserved(o: {
  eventId: string;
  /** epoch ms */
  at: number;
  correlationId: string;
  causationId: string;
  reference: string;
  provider: ProviderName;
  trigger: VerificationTrigger;
  movements: PaymentMovements;
}): MoneyMovementsObservedV1 {
  return {
    event_id: o.eventId,
    occurred_at: o.at,
    correlation_id: o.correlationId,
    causation_id: o.causationId,
    reference: o.reference,
    provider: o.provider,
    trigger: o.trigger,
    verification_id: o.eventId,
    movements: o.movements.observations.map(observationRecord),
    skipped: o.movements.skipped?.length ?? 0,
  };
}
