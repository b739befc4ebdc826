import { describe, expect, it } from 'vitest';
import { decodeKeysetCursor, encodeKeysetCursor, parseKeysetCursor } from '@settle/http';

describe('keyset cursor of a list', () => {
  it('round-trips (the timestamp with microseconds, reference) through an opaque base64url text', () => {
    const cursor = { at: '2026-11-01T10:00:00.000002Z', reference: 'REF-"1"=x' };
    const text = encodeKeysetCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeKeysetCursor(text)).toEqual(cursor);
  });

  it.each([
    ['not base64url', 'a+b/c'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['not a pair', Buffer.from('["2026-11-01T10:00:00.000002Z"]').toString('base64url')],
    ['a timestamp without microseconds', Buffer.from('["2026-11-01T10:00:00Z","R"]').toString('base64url')],
    ['an empty reference', Buffer.from('["2026-11-01T10:00:00.000002Z",""]').toString('base64url')],
    ['an impossible date', Buffer.from('["2026-13-45T10:00:00.000002Z","R"]').toString('base64url')],
    ['empty', ''],
  ])('refuses %s', (_name, text) => {
    expect(decodeKeysetCursor(text)).toBeNull();
  });
});

describe('the cursor parameter of a list query', () => {
  it('is absent, a cursor the list gave, or a 400 problem with a stable code', () => {
    expect(parseKeysetCursor(undefined)).toBeUndefined();
    const cursor = { at: '2026-11-01T10:00:00.000002Z', reference: 'ref_1' };
    expect(parseKeysetCursor(encodeKeysetCursor(cursor))).toEqual(cursor);
    expect(() => parseKeysetCursor('nope!')).toThrow(expect.objectContaining({ status: 400, code: 'REQUEST.VALIDATION_FAILED' }));
  });
});
