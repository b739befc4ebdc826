import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { HEADERS, PermanentMessageError, type MessageContext } from '@settle/messaging';
import { deadLetterHeaders } from '../src/dead-letter.js';

const message: KafkaMessage = {
  key: Buffer.from('ref_1'),
  value: Buffer.from([0, 0, 0, 0, 1, 2]),
  timestamp: '1700000000000',
  attributes: 0,
  offset: '42',
  headers: { [HEADERS.eventType]: Buffer.from('CheckoutRegistered') },
};
const context: MessageContext = { topic: 'settle.transaction-events.v1', partition: 3, offset: '42', key: 'ref_1', timestamp: 1_700_000_000_000, headers: {} };

describe('deadLetterHeaders', () => {
  it("keeps the original headers and names the error's code and message, the source and the group", () => {
    const headers = deadLetterHeaders(message, context, new PermanentMessageError('TEST.POISON', 'cannot be processed'), 'settle-verifier');
    expect(headers).toEqual({
      [HEADERS.eventType]: Buffer.from('CheckoutRegistered'),
      [HEADERS.dlqErrorCode]: 'TEST.POISON',
      [HEADERS.dlqErrorMessage]: 'cannot be processed',
      [HEADERS.dlqSourceTopic]: 'settle.transaction-events.v1',
      [HEADERS.dlqSourcePartition]: '3',
      [HEADERS.dlqSourceOffset]: '42',
      [HEADERS.dlqConsumerGroup]: 'settle-verifier',
    });
  });

  it('falls back to MESSAGE.UNPROCESSABLE for an error without a code, and cuts long messages to 1 000 characters', () => {
    const headers = deadLetterHeaders(message, context, new Error('x'.repeat(5_000)), 'g');
    expect(headers[HEADERS.dlqErrorCode]).toBe('MESSAGE.UNPROCESSABLE');
    expect(headers[HEADERS.dlqErrorMessage]).toHaveLength(1_000);
  });
});
