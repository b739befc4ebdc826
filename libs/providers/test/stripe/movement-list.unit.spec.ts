import { describe, expect, it } from 'vitest';
import { stripeListedMovement, stripeMovementListPage, stripeMovementListPath } from '@settle/providers';

const window = { fromMs: Date.UTC(2026, 2, 1), untilMs: Date.UTC(2026, 2, 2) };
const created = Date.UTC(2026, 2, 1, 10) / 1000;

// Shapes as the `stripe` package types the Refund and Dispute (fields Settle does not read left out).
const refund = (over: Record<string, unknown> = {}) => ({
  id: 're_3MtwBwLkdIwHu7ix0ZGn4Q3n',
  object: 'refund',
  amount: 1000,
  charge: 'ch_3MtwBwLkdIwHu7ix1NGQhZqc',
  created,
  currency: 'usd',
  payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
  status: 'succeeded',
  ...over,
});
const dispute = (over: Record<string, unknown> = {}) => ({
  id: 'dp_1MtJUT2eZvKYlo2CNaw2HvEv',
  object: 'dispute',
  amount: 1000,
  charge: 'ch_1AZtxr2eZvKYlo2CJDX8whov',
  created,
  currency: 'usd',
  payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
  reason: 'general',
  status: 'needs_response',
  ...over,
});
const answer = (data: unknown[], hasMore = false, url = '/v1/refunds') => JSON.stringify({ object: 'list', url, has_more: hasMore, data });

describe("Stripe's refund and dispute lists by creation time", () => {
  it('asks each list for whole seconds covering exactly [from, until), 100 a page, after the cursor', () => {
    expect(stripeMovementListPath('refunds', window, null)).toBe('/v1/refunds?created%5Bgte%5D=1772323200&created%5Blt%5D=1772409600&limit=100');
    expect(stripeMovementListPath('disputes', { fromMs: 1_500, untilMs: 3_001 }, 'dp_x', 10)).toBe(
      '/v1/disputes?created%5Bgte%5D=2&created%5Blt%5D=4&limit=10&starting_after=dp_x',
    );
    expect(() => stripeMovementListPath('refunds', window, 're_x&limit=1')).toThrow(expect.objectContaining({ code: 'PROVIDER.INVALID_CURSOR' }));
    expect(() => stripeMovementListPath('refunds', { fromMs: 2, untilMs: 1 }, null)).toThrow(RangeError);
  });

  it('reads a refund and a dispute as the PaymentIntent they name, created in ms; an expanded intent by its id', () => {
    expect(stripeListedMovement('refund', refund())).toEqual({
      kind: 'listed',
      value: { kind: 'refund', id: 're_3MtwBwLkdIwHu7ix0ZGn4Q3n', reference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', createdAtMs: created * 1000 },
    });
    expect(stripeListedMovement('dispute', dispute({ payment_intent: { id: 'pi_expanded', object: 'payment_intent' } }))).toEqual({
      kind: 'listed',
      value: { kind: 'dispute', id: 'dp_1MtJUT2eZvKYlo2CNaw2HvEv', reference: 'pi_expanded', createdAtMs: created * 1000 },
    });
  });

  it('skips, with why, an object naming no PaymentIntent and one it cannot read', () => {
    expect(stripeListedMovement('refund', refund({ payment_intent: null }))).toEqual({
      kind: 'skipped',
      row: { id: 're_3MtwBwLkdIwHu7ix0ZGn4Q3n', reason: expect.stringContaining('names no PaymentIntent') },
    });
    expect(stripeListedMovement('dispute', dispute({ created: 'yesterday' }))).toMatchObject({
      kind: 'skipped',
      row: { reason: expect.stringContaining('lacks') },
    });
  });

  it('a page: the objects in the window, the next page of the same list after its last id, then disputes, then the end', () => {
    const inWindow = refund({ id: 're_a' });
    const late = refund({ id: 're_late', created: window.untilMs / 1000 });
    const page = stripeMovementListPage('refunds', 200, answer([inWindow, late, refund({ id: 're_b', payment_intent: null })], true), window);
    expect(page).toEqual({
      movements: [{ kind: 'refund', id: 're_a', reference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', createdAtMs: created * 1000 }],
      next: 'refunds:re_b',
      rows: 3,
      skipped: [{ index: 2, id: 're_b', reason: expect.stringContaining('PaymentIntent') }],
      outsideWindow: 1,
    });
    expect(stripeMovementListPage('refunds', 200, answer([inWindow]), window).next).toBe('disputes:');
    expect(stripeMovementListPage('disputes', 200, answer([dispute()], true, '/v1/disputes'), window).next).toBe('disputes:dp_1MtJUT2eZvKYlo2CNaw2HvEv');
    expect(stripeMovementListPage('disputes', 200, answer([dispute()], false, '/v1/disputes'), window)).toMatchObject({
      movements: [{ kind: 'dispute', reference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' }],
      next: null,
    });
  });

  it('throws for answers it cannot use: a refused key not retryable, a 500 retryable, has_more with nothing to start after', () => {
    expect(() => stripeMovementListPage('refunds', 401, '{"error":{}}', window)).toThrow(
      expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED', retryable: false }),
    );
    expect(() => stripeMovementListPage('refunds', 500, '{"error":{}}', window)).toThrow(expect.objectContaining({ retryable: true }));
    expect(() => stripeMovementListPage('refunds', 200, '{"object":"refund"}', window)).toThrow(
      expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }),
    );
    expect(() => stripeMovementListPage('refunds', 200, answer([], true), window)).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
  });
});
