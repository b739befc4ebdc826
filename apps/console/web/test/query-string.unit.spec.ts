import { describe, expect, it } from 'vitest';
import { NO_FILTERS, filtersFromSearch, pageQuery, transactionsHref, transactionsQuery } from '../src/lib/query-string';
import { queueHref, transactionHref } from '../src/lib/routes';
import { matchRoute } from '../src/pages';

describe('transactionsQuery', () => {
  it('sends the time window after the other filters, in the order the API documents', () => {
    expect(transactionsQuery({ to: '2026-11-04T00:00:00.000Z', state: 'PENDING', from: '2026-11-02T00:00:00.000Z' })).toBe(
      '?state=PENDING&from=2026-11-02T00%3A00%3A00.000Z&to=2026-11-04T00%3A00%3A00.000Z',
    );
    expect(filtersFromSearch('?from=2026-11-02T00%3A00%3A00.000Z')).toMatchObject({ from: '2026-11-02T00:00:00.000Z', to: '' });
  });

  it('is empty with no filters, cursor or limit', () => {
    expect(transactionsQuery(NO_FILTERS)).toBe('');
  });

  it('sends the set filters trimmed, in a fixed order, and leaves out empty ones', () => {
    expect(transactionsQuery({ entitlement: 'LOCKED', q: '  ref_abc ', provider: '', state: 'PENDING' })).toBe('?q=ref_abc&state=PENDING&entitlement=LOCKED');
  });

  it('encodes what a query string cannot hold as is', () => {
    expect(transactionsQuery({ q: 'ada+test@example.com' })).toBe('?q=ada%2Btest%40example.com');
    expect(transactionsQuery({ q: '+234 803 000 0000' })).toBe('?q=%2B234+803+000+0000');
  });

  it('passes the opaque cursor on unchanged and clamps the limit to 1..100', () => {
    const cursor = 'eyJ1IjoiMjAyNi0xMS0yNVQwODo1ODoyNi4wMDBaIiwiciI6InJlZl8xIn0=';
    expect(new URLSearchParams(transactionsQuery({ state: 'RECOVERING' }, cursor, 50)).get('cursor')).toBe(cursor);
    expect(transactionsQuery({}, null, 50)).toBe('?limit=50');
    expect(transactionsQuery({}, null, 500)).toBe('?limit=100');
    expect(transactionsQuery({}, null, 0)).toBe('?limit=1');
    expect(transactionsQuery({}, null, 7.9)).toBe('?limit=7');
  });

  it('leaves out a null or empty cursor', () => {
    expect(transactionsQuery({ provider: 'paystack' }, null)).toBe('?provider=paystack');
    expect(transactionsQuery({ provider: 'paystack' }, '')).toBe('?provider=paystack');
  });
});

describe('transactionsHref and filtersFromSearch', () => {
  it('links the list with its filters, and plainly without', () => {
    expect(transactionsHref({ state: 'STATE_MISMATCH' })).toBe('/transactions?state=STATE_MISMATCH');
    expect(transactionsHref({})).toBe('/transactions');
  });

  it('reads back the filters a link wrote, ignoring other parameters', () => {
    const filters = { q: 'user-42', provider: 'stripe', state: 'PENDING', entitlement: 'HELD_IN_REVIEW', from: '2026-11-02T00:00:00.000Z', to: '' };
    const href = transactionsHref(filters);
    expect(filtersFromSearch(href.slice(href.indexOf('?')))).toEqual(filters);
    expect(filtersFromSearch('?state=PENDING&utm=x')).toEqual({ ...NO_FILTERS, state: 'PENDING' });
    expect(filtersFromSearch('')).toEqual(NO_FILTERS);
  });
});

describe('pageQuery', () => {
  it('sends the cursor and the clamped limit of a queue page, nothing when neither is given', () => {
    expect(pageQuery()).toBe('');
    expect(pageQuery('abc', 50)).toBe('?cursor=abc&limit=50');
    expect(pageQuery(null, 500)).toBe('?limit=100');
  });
});

describe('matchRoute', () => {
  it('names the three pages', () => {
    expect(matchRoute('/')).toEqual({ name: 'overview' });
    expect(matchRoute('/transactions')).toEqual({ name: 'transactions' });
    expect(matchRoute('/transactions/')).toEqual({ name: 'transactions' });
    expect(matchRoute('/transactions/ref_abc123')).toEqual({ name: 'transaction', reference: 'ref_abc123' });
    expect(matchRoute('/settings')).toEqual({ name: 'not_found' });
    expect(matchRoute('/transactions/a/b')).toEqual({ name: 'not_found' });
  });

  it('names the two tabs of the queues, /queues being the first', () => {
    expect(matchRoute('/queues')).toEqual({ name: 'queues', tab: 'held' });
    expect(matchRoute(queueHref('held'))).toEqual({ name: 'queues', tab: 'held' });
    expect(matchRoute(`${queueHref('manual')}/`)).toEqual({ name: 'queues', tab: 'manual' });
    expect(queueHref('manual')).toBe('/queues/manual-review');
    expect(matchRoute('/queues/other')).toEqual({ name: 'not_found' });
  });

  it('round-trips references with characters a path must encode', () => {
    const reference = 'ws_CO_2611/2026 #1';
    expect(matchRoute(transactionHref(reference))).toEqual({ name: 'transaction', reference });
  });

  it('treats a malformed escape as no page', () => {
    expect(matchRoute('/transactions/%E0%A4%A')).toEqual({ name: 'not_found' });
  });
});
