import { describe, expect, it } from 'vitest';
import { isWellFormedReference, REFERENCE_PATTERN } from '@settle/domain';

describe('a transaction reference (REFERENCE_PATTERN: 1 to 100 URL-safe characters, a letter or digit first)', () => {
  it.each(['ref_7PVGX8MEk85tgeEpVDtD', 'a', 'ws_CO_0123456789', 'pi_3Nk.x=y-z', 'A'.repeat(100)])('%s is one', (reference) => {
    expect(isWellFormedReference(reference)).toBe(true);
  });

  it.each(['', '_ref', '-ref', 'ref with space', 'ref/1', 'ref%00', 'réf', 'ref\u0000', 'A'.repeat(101), '../x'])('%j is not', (reference) => {
    expect(isWellFormedReference(reference)).toBe(false);
    expect(REFERENCE_PATTERN.test(reference)).toBe(false);
  });
});
