import { describe, expect, it } from 'vitest';
import { isPermanentError, SettleError } from '@settle/domain';
import { PartitionFencedError } from '../src/partition-fencing.js';

describe('PartitionFencedError', () => {
  it('is a SettleError with a stable code, never a permanent one (the batch is given up for the new owner, not dead-lettered)', () => {
    const error = new PartitionFencedError(3);
    expect(error).toBeInstanceOf(SettleError);
    expect(error.code).toBe('SWEEPER.PARTITION_FENCED');
    expect(error.kind).toBe('unavailable');
    expect(isPermanentError(error)).toBe(false);
    expect(error.partition).toBe(3);
    expect(error.message).toContain('partition 3');
  });
});
