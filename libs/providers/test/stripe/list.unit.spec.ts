import { describe, expect, it } from 'vitest';
import { STRIPE_LIST_STATUSES, stripeListPage, stripeListPath } from '@settle/providers';

const window = { fromMs: Date.UTC(2026, 2, 1), untilMs: Date.UTC(2026, 2, 2) };
const created = Date.UTC(2026, 2, 1, 10) / 1000;

const intent = (fields: Record<string, unknown> = {}) => ({
  id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
  object: 'payment_intent',
  amount: 2_000,
  amount_received: 2_000,
  created,
  currency: 'usd',
  last_payment_error: null,
  latest_charge: 'ch_1',
  metadata: { settle: 'yes' },
  receipt_email: 'ada@example.com',
  status: 'succeeded',
  ...fields,
});

const answer = (data: unknown[], hasMore = false) => JSON.stringify({ object: 'list', url: '/v1/payment_intents', has_more: hasMore, data });

describe("Stripe's PaymentIntent list to a page (docs/provider-facts.md, Stripe)", () => {
  it('asks for whole seconds covering exactly [from, until), 100 a page, the charge expanded, after the cursor', () => {
    expect(stripeListPath(window, null)).toBe(
      '/v1/payment_intents?created%5Bgte%5D=1772323200&created%5Blt%5D=1772409600&limit=100&expand%5B%5D=data.latest_charge',
    );
    expect(stripeListPath({ fromMs: 1_500, untilMs: 3_001 }, 'pi_x', 10)).toBe(
      '/v1/payment_intents?created%5Bgte%5D=2&created%5Blt%5D=4&limit=10&expand%5B%5D=data.latest_charge&starting_after=pi_x',
    );
    expect(() => stripeListPath(window, 'pi_x&limit=1')).toThrow(expect.objectContaining({ code: 'PROVIDER.INVALID_CURSOR' }));
  });

  it('reads an intent: its id as the reference, amount_received when succeeded, currency upper case, receipt_email, metadata, created', () => {
    expect(stripeListPage(200, answer([intent()]), window)).toEqual({
      transactions: [
        {
          provider: 'stripe',
          reference: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
          providerTransactionId: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
          status: 'succeeded',
          providerStatus: 'succeeded',
          amountMinor: 2_000,
          currency: 'USD',
          customer: { email: 'ada@example.com', phone: undefined },
          metadata: { settle: 'yes' },
          createdAtMs: created * 1000,
          paidAtMs: null,
        },
      ],
      next: null,
      rows: 1,
    });
  });

  it('the expanded charge gives the e-mail when receipt_email is not set; an unexpanded charge gives none', () => {
    const page = stripeListPage(
      200,
      answer([
        intent({ receipt_email: null, latest_charge: { id: 'ch_1', billing_details: { email: 'card@example.com' } } }),
        intent({ id: 'pi_2', receipt_email: null }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => t.customer.email)).toEqual(['card@example.com', undefined]);
  });

  it('amounts: what was received for a succeeded intent, what was asked for the others; zero- and three-decimal currencies as listed', () => {
    const page = stripeListPage(
      200,
      answer([
        intent({ amount: 2_000, amount_received: 1_500 }),
        intent({ id: 'pi_2', status: 'requires_payment_method', amount: 2_000, amount_received: 0 }),
        intent({ id: 'pi_3', currency: 'jpy', amount: 500, amount_received: 500 }),
        intent({ id: 'pi_4', currency: 'kwd', amount: 1_230, amount_received: 1_230 }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => [t.amountMinor, t.currency])).toEqual([
      [1_500, 'USD'],
      [2_000, 'USD'],
      [500, 'JPY'],
      [1_230, 'KWD'],
    ]);
  });

  it.each([
    ['succeeded', 'succeeded'],
    ['processing', 'pending'],
    ['requires_action', 'pending'],
    ['requires_confirmation', 'pending'],
    ['requires_capture', 'pending'],
    ['requires_payment_method', 'failed'],
    ['canceled', 'failed'],
  ])('status %s is %s', (status, normalised) => {
    expect(stripeListPage(200, answer([intent({ status })]), window).transactions[0]).toMatchObject({ status: normalised, providerStatus: status });
    expect(STRIPE_LIST_STATUSES[status]).toBe(normalised);
  });

  it('a decline (requires_payment_method with last_payment_error) is failed too', () => {
    const declined = intent({
      status: 'requires_payment_method',
      amount_received: 0,
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' },
    });
    expect(stripeListPage(200, answer([declined]), window).transactions[0]).toMatchObject({ status: 'failed', amountMinor: 2_000 });
  });

  it('the cursor is the last id while has_more, even when that row could not be read', () => {
    expect(stripeListPage(200, answer([intent({ id: 'pi_a' }), intent({ id: 'pi_b' })], true), window).next).toBe('pi_b');
    const page = stripeListPage(200, answer([intent({ id: 'pi_a' }), intent({ id: 'pi_b', status: 'mystery' })], true), window);
    expect(page).toMatchObject({ next: 'pi_b', rows: 2, skipped: [{ index: 1, id: 'pi_b', reference: 'pi_b', reason: 'unknown status "mystery"' }] });
    expect(stripeListPage(200, answer([intent()], false), window).next).toBeNull();
    expect(() => stripeListPage(200, answer([], true), window)).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
  });

  it('unreadable rows are kept with their reason; rows outside the window are counted', () => {
    const page = stripeListPage(
      200,
      answer([
        intent({ id: 'pi_ok' }),
        intent({ id: 'pi_received', amount_received: null }),
        intent({ id: 'pi_currency', currency: 'dollars' }),
        intent({ id: 'pi_created', created: 'yesterday' }),
        intent({ id: 'pi_late', created: window.untilMs / 1000 }),
      ]),
      window,
    );
    expect(page.transactions.map((t) => t.reference)).toEqual(['pi_ok']);
    expect(page.skipped?.map((s) => [s.id, s.reason])).toEqual([
      ['pi_received', 'a succeeded intent without amount_received'],
      ['pi_currency', 'the currency is not an ISO 4217 code'],
      ['pi_created', expect.stringContaining('lacks')],
    ]);
    expect(page.outsideWindow).toBe(1);
  });

  it("errors in Stripe's envelope throw: a refused key is not retryable, a 500 is", () => {
    const unauthorized = JSON.stringify({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    expect(() => stripeListPage(401, unauthorized, window)).toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED', retryable: false }));
    expect(() => stripeListPage(500, '{"error":{"type":"api_error"}}', window)).toThrow(expect.objectContaining({ retryable: true }));
    expect(() => stripeListPage(400, '{"error":{"type":"invalid_request_error"}}', window)).toThrow(
      expect.objectContaining({ code: 'PROVIDER.UNEXPECTED_STATUS_400', retryable: false }),
    );
    expect(() => stripeListPage(200, '{"object":"payment_intent"}', window)).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
  });
});
