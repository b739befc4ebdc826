/** Settle's scope in a provider account (docs/reconciliation.md, "Scope"): by reference prefix or by a metadata key. */
import { describe, expect, it } from 'vitest';
import { inSettleScope } from '@settle/domain';

describe('inSettleScope', () => {
  it('by reference prefix: only references that start with it, case-sensitively', () => {
    const marker = { kind: 'reference_prefix', prefix: 'stl_' } as const;
    expect([
      inSettleScope({ reference: 'stl_9f2c' }, marker),
      inSettleScope({ reference: 'STL_9f2c' }, marker),
      inSettleScope({ reference: 'inv_1' }, marker),
    ]).toEqual([true, false, false]);
  });

  it('by metadata key: present (with the value, when one is configured); no metadata is out of scope', () => {
    const anyValue = { kind: 'metadata_key', key: 'settle' } as const;
    const oneValue = { kind: 'metadata_key', key: 'settle', value: 'checkout' } as const;
    expect(inSettleScope({ reference: 'x', metadata: { settle: 'checkout' } }, anyValue)).toBe(true);
    expect(inSettleScope({ reference: 'x', metadata: { settle: 'invoice' } }, anyValue)).toBe(true);
    expect(inSettleScope({ reference: 'x', metadata: { settle: 'invoice' } }, oneValue)).toBe(false);
    expect(inSettleScope({ reference: 'x', metadata: { other: 'checkout' } }, oneValue)).toBe(false);
    expect(inSettleScope({ reference: 'x' }, anyValue)).toBe(false);
  });
});
