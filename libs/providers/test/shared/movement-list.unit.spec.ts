import { describe, expect, it } from 'vitest';
import { canListMovements, movementPageOf, nextMovementCursor, readMovementCursor, type ListedMovement, type RowRead } from '@settle/providers';

describe('the one cursor over the refund list, then the dispute list', () => {
  it.each([
    [null, { list: 'refunds', cursor: null }],
    ['refunds:2', { list: 'refunds', cursor: '2' }],
    ['refunds:re_3MtwBwLkdIwHu7ix', { list: 'refunds', cursor: 're_3MtwBwLkdIwHu7ix' }],
    ['disputes:', { list: 'disputes', cursor: null }],
    ['disputes:7', { list: 'disputes', cursor: '7' }],
  ])('reads %j as %j', (cursor, read) => {
    expect(readMovementCursor(cursor)).toEqual(read);
  });

  it.each(['2', 'pi_123', 'refunds:', 'chargebacks:2', 'm|refunds:2', ''])('refuses %j, a cursor no movement lister wrote', (cursor) => {
    expect(() => readMovementCursor(cursor)).toThrow(expect.objectContaining({ code: 'PROVIDER.INVALID_CURSOR', retryable: false }));
  });

  it('moves on within a list, then from refunds to disputes, then ends', () => {
    expect(nextMovementCursor('refunds', '3')).toBe('refunds:3');
    expect(nextMovementCursor('refunds', null)).toBe('disputes:');
    expect(nextMovementCursor('disputes', 'dp_9')).toBe('disputes:dp_9');
    expect(nextMovementCursor('disputes', null)).toBeNull();
  });

  it('every cursor it writes reads back as the list and page it names', () => {
    expect(readMovementCursor(nextMovementCursor('refunds', '3'))).toEqual({ list: 'refunds', cursor: '3' });
    expect(readMovementCursor(nextMovementCursor('disputes', 'dp_9'))).toEqual({ list: 'disputes', cursor: 'dp_9' });
    expect(readMovementCursor(nextMovementCursor('refunds', null))).toEqual({ list: 'disputes', cursor: null });
  });
});

describe('a movement page of a list answer', () => {
  const window = { fromMs: 1_000, untilMs: 2_000 };
  const read = (raw: unknown): RowRead<ListedMovement> => {
    const row = raw as { id?: string; at?: number; ref?: string };
    if (row.id === undefined || row.at === undefined || row.ref === undefined) return { kind: 'skipped', row: { reason: 'unreadable' } };
    return { kind: 'listed', value: { kind: 'refund', id: row.id, reference: row.ref, createdAtMs: row.at } };
  };

  it('lists the rows in [from, until), counts the rest and keeps the unreadable with their position', () => {
    const rows = [
      { id: 'a', at: 1_000, ref: 'stl_a' },
      { id: 'b', at: 2_000, ref: 'stl_b' },
      { id: 'c' },
      { id: 'd', at: 1_999, ref: 'stl_a' },
      { id: 'e', at: 999, ref: 'stl_e' },
    ];
    expect(movementPageOf(window, rows, read, 'refunds:2')).toEqual({
      movements: [
        { kind: 'refund', id: 'a', reference: 'stl_a', createdAtMs: 1_000 },
        { kind: 'refund', id: 'd', reference: 'stl_a', createdAtMs: 1_999 },
      ],
      next: 'refunds:2',
      rows: 5,
      skipped: [{ index: 2, reason: 'unreadable' }],
      outsideWindow: 2,
    });
  });

  it('an empty answer is an empty page without skipped or outside counts', () => {
    expect(movementPageOf(window, [], read, null)).toEqual({ movements: [], next: null, rows: 0 });
  });

  it('an adapter lists movements when it has listMovementPage', () => {
    expect(canListMovements({ listMovementPage: async () => ({ movements: [], next: null, rows: 0 }) })).toBe(true);
    expect(canListMovements({ listPage: async () => ({}) })).toBe(false);
  });
});
