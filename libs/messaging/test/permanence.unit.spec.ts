import { describe, expect, it } from 'vitest';
import { isPermanentError, SettleError } from '@settle/domain';
import { DecodeError, PermanentMessageError } from '@settle/messaging';

describe("the consumer loop's permanent errors", () => {
  it('are SettleErrors of kind invalid that keep their codes, so isPermanentError alone dead-letters them', () => {
    for (const error of [new PermanentMessageError('TEST.POISON', 'cannot be processed'), new DecodeError('MESSAGE.UNDECODABLE', 'truncated')]) {
      expect(error).toBeInstanceOf(SettleError);
      expect(error.kind).toBe('invalid');
      expect(isPermanentError(error)).toBe(true);
    }
    expect(new DecodeError('MESSAGE.UNKNOWN_TYPE', 'no header').code).toBe('MESSAGE.UNKNOWN_TYPE');
    expect(isPermanentError(new Error('connection reset'))).toBe(false);
  });
});
