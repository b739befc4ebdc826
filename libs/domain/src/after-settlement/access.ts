import { refundedMinor, type PaymentMoney } from './decider.js';

/**
 * What an entitlement's access does when the money of a payment that bought it moves
 * (docs/delivery.md, "Access follows the money"); configured per entitlement:
 * - `partialRefund`: `keep` (the default: a goodwill partial refund keeps access) or `revoke`;
 * - `disputeOpened`: `keep` (the default: nothing changes until the dispute is decided) or
 *   `suspend` (access is taken away while it is open, and given back if it is won).
 *
 * A full refund, a reversal and a lost dispute always revoke: the money that bought the access
 * went back to the payer.
 */
export interface AccessPolicy {
  readonly partialRefund: 'keep' | 'revoke';
  readonly disputeOpened: 'keep' | 'suspend';
}

/** The policy of an entitlement nobody configured. */
export const DEFAULT_ACCESS_POLICY: AccessPolicy = { partialRefund: 'keep', disputeOpened: 'keep' };

/**
 * Whether the grant a payment bought is in force, given the payment's money and the
 * entitlement's {@link AccessPolicy}: not after a full refund, a reversal or a lost dispute;
 * after a partial refund as the policy says; while a dispute is open as the policy says.
 */
export function grantInForce(money: PaymentMoney, policy: AccessPolicy): boolean {
  const disputes = [...money.disputes.values()];
  if (money.reversal !== null || disputes.some((d) => d.status === 'lost')) return false;
  const refunded = refundedMinor(money);
  if (refunded >= money.captured.amountMinor && refunded > 0) return false;
  if (refunded > 0 && policy.partialRefund === 'revoke') return false;
  return !(disputes.some((d) => d.status === 'open') && policy.disputeOpened === 'suspend');
}

/**
 * What a money fact does to the access its payment bought: `revoke` when the grant was in force
 * before and is not after, `reinstate` when the reverse (a suspending dispute won, a refund that
 * failed after it was recorded), `none` otherwise.
 */
export function accessChange(before: PaymentMoney, after: PaymentMoney, policy: AccessPolicy): 'revoke' | 'reinstate' | 'none' {
  const was = grantInForce(before, policy);
  const is = grantInForce(after, policy);
  if (was === is) return 'none';
  return is ? 'reinstate' : 'revoke';
}
