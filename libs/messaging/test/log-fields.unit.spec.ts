import { batchLogFields, HEADERS, messageLogContext, messageLogFields, type MessageContext } from '@settle/messaging';
import { describe, expect, it } from 'vitest';

const context: MessageContext = {
  topic: 'settle.consensus-results.v1',
  partition: 4,
  offset: '1207',
  key: 'ref_1',
  timestamp: 0,
  // kafkajs hands headers as Buffers.
  headers: {
    [HEADERS.correlationId]: Buffer.from('corr-1'),
    [HEADERS.causationId]: Buffer.from('cause-1'),
    [HEADERS.eventType]: Buffer.from('ConsensusResult'),
  },
};

describe('the log fields of a Kafka message and batch', () => {
  it("name a message's offset, correlation and causation ids from its headers, and its reference once decoded", () => {
    expect(messageLogFields(context)).toEqual({ offset: '1207', correlationId: 'corr-1', causationId: 'cause-1' });
    const event = { type: 'CheckoutCompleted', payload: { event_id: 'e', occurred_at: 0, reference: 'ref_1' } } as never;
    expect(messageLogContext(context, event)).toEqual({
      topic: 'settle.consensus-results.v1',
      partition: 4,
      offset: '1207',
      correlationId: 'corr-1',
      causationId: 'cause-1',
      reference: 'ref_1',
    });
  });

  it('leave out the ids a message does not carry', () => {
    expect(messageLogFields({ offset: '3', headers: {} })).toEqual({ offset: '3' });
  });

  it("name a batch's group, topic, partition, first and last offsets", () => {
    const messages = ['10', '11', '14'].map((offset) => ({ offset }) as never);
    expect(batchLogFields('settle-verifier', { topic: 't', partition: 2, messages })).toEqual({
      groupId: 'settle-verifier',
      topic: 't',
      partition: 2,
      firstOffset: '10',
      lastOffset: '14',
      messages: 3,
    });
  });
});
