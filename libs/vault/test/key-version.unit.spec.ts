import { describe, expect, it } from 'vitest';
import { compareKeyVersions, nextKeyVersion } from '@settle/vault';

describe('key version names', () => {
  it('orders by number, not as text, and finds the next one', () => {
    expect(['v10', 'v2', 'v9', 'v1'].sort(compareKeyVersions)).toEqual(['v1', 'v2', 'v9', 'v10']);
    expect(nextKeyVersion(['v1', 'v10', 'v9'])).toBe('v11');
    expect(nextKeyVersion([])).toBe('v1');
  });
});
