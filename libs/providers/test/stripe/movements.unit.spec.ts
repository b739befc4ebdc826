import { describe, expect, it } from 'vitest';
import {
  ProviderCallError,
  stripeDisputeObservation,
  stripeMovementRows,
  stripeMovements,
  stripeMovementsPath,
  stripeRefundObservation,
} from '@settle/providers';

// Shapes as Stripe's API reference documents the Refund and Dispute objects (fields Settle does not read left out).
const refund = (over: Record<string, unknown> = {}) => ({
  id: 're_3MtwBwLkdIwHu7ix0ZGn4Q3n',
  object: 'refund',
  amount: 1000,
  balance_transaction: 'txn_1MtwBwLkdIwHu7ixRXTUh9Yi',
  charge: 'ch_3MtwBwLkdIwHu7ix1NGQhZqc',
  created: 1680651763,
  currency: 'usd',
  metadata: {},
  payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
  reason: null,
  receipt_number: null,
  source_transfer_reversal: null,
  status: 'succeeded',
  transfer_reversal: null,
  ...over,
});
const dispute = (over: Record<string, unknown> = {}) => ({
  id: 'dp_1MtJUT2eZvKYlo2CNaw2HvEv',
  object: 'dispute',
  amount: 1000,
  balance_transactions: [],
  charge: 'ch_1AZtxr2eZvKYlo2CJDX8whov',
  created: 1680651737,
  currency: 'usd',
  evidence_details: { due_by: 1682294399, has_evidence: false, past_due: false, submission_count: 0 },
  is_charge_refundable: true,
  livemode: false,
  metadata: {},
  payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
  reason: 'general',
  status: 'warning_needs_response',
  ...over,
});
const list = (data: unknown[], hasMore = false) => JSON.stringify({ object: 'list', url: '/v1/refunds', has_more: hasMore, data });

describe("Stripe's refunds and disputes of a payment", () => {
  it('asks for the payment intent refunds and disputes, a page of 100', () => {
    expect(stripeMovementsPath('refunds', 'pi_3Mtw')).toBe('/v1/refunds?payment_intent=pi_3Mtw&limit=100');
    expect(stripeMovementsPath('disputes', 'pi_3Mtw')).toBe('/v1/disputes?payment_intent=pi_3Mtw&limit=100');
  });

  it('reads a refund: amount in minor units, created in ms, the intent as the payment reference', () => {
    expect(stripeRefundObservation(refund())).toEqual({
      kind: 'refund',
      providerId: 're_3MtwBwLkdIwHu7ix0ZGn4Q3n',
      paymentReference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
      amountMinor: 1000,
      currency: 'usd',
      providerStatus: 'succeeded',
      createdAt: 1680651763000,
      status: 'succeeded',
    });
    expect(stripeRefundObservation(refund({ payment_intent: { id: 'pi_expanded', object: 'payment_intent' } }))).toMatchObject({
      paymentReference: 'pi_expanded',
    });
  });

  it.each([
    ['pending', 'pending'],
    ['requires_action', 'pending'],
    ['succeeded', 'succeeded'],
    ['failed', 'failed'],
    ['canceled', 'failed'],
  ])('normalises refund status %s as %s', (raw, status) => {
    expect(stripeRefundObservation(refund({ status: raw }))).toMatchObject({ status, providerStatus: raw });
  });

  it.each([
    ['warning_needs_response', 'open'],
    ['warning_under_review', 'open'],
    ['needs_response', 'open'],
    ['under_review', 'open'],
    ['appeal_needs_response', 'open'],
    ['appeal_under_review', 'open'],
    ['warning_closed', 'won'],
    ['prevented', 'won'],
    ['won', 'won'],
    ['lost', 'lost'],
  ])('normalises dispute status %s as %s', (raw, status) => {
    expect(stripeDisputeObservation(dispute({ status: raw }))).toMatchObject({ kind: 'dispute', status, providerStatus: raw, reason: 'general' });
  });

  it('keeps apart what it cannot read, with why, and orders the rest oldest first', () => {
    const movements = stripeMovements(
      [refund({ id: 're_new', created: 1680651800 }), refund({ status: 'paused' }), refund({ amount: 10.5 })],
      [dispute({ created: 1680651700 })],
    );
    expect(movements.observations.map((o) => o.providerId)).toEqual(['dp_1MtJUT2eZvKYlo2CNaw2HvEv', 're_new']);
    expect(movements.skipped).toEqual([
      { index: 1, id: 're_3MtwBwLkdIwHu7ix0ZGn4Q3n', reference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', reason: 'unknown refund status "paused"' },
      { index: 2, id: 're_3MtwBwLkdIwHu7ix0ZGn4Q3n', reference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', reason: expect.stringContaining('documented types') },
    ]);
  });

  it('refuses an answer it cannot trust: not 200, not a list, or more than one page', () => {
    expect(stripeMovementRows(200, list([refund()]))).toHaveLength(1);
    expect(() => stripeMovementRows(401, '{}')).toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED', retryable: false }));
    expect(() => stripeMovementRows(500, '{}')).toThrow(expect.objectContaining({ code: 'PROVIDER.UNEXPECTED_STATUS_500', retryable: true }));
    expect(() => stripeMovementRows(200, '{"data":[]}')).toThrow(ProviderCallError);
    expect(() => stripeMovementRows(200, list([refund()], true))).toThrow(/more than 100/);
  });
});
