import type { KafkaMessage, Producer } from 'kafkajs';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HEADERS, MessagingMetrics, PermanentMessageError, type MessageContext } from '@settle/messaging';
import { deadLetterHeaders, deadLetterWriter } from '../src/dead-letter.js';

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

describe('deadLetterWriter', () => {
  it('counts each record Kafka acknowledged by source topic and reason, and none that failed to send', async () => {
    const registry = new Registry();
    const metrics = new MessagingMetrics(registry);
    let acknowledge = true;
    const sent: string[] = [];
    const producer = {
      send: async ({ topic }: { topic: string }) => {
        if (!acknowledge) throw new Error('broker unreachable');
        sent.push(topic);
        return [];
      },
    } as unknown as Producer;
    const write = deadLetterWriter({
      producer,
      deadLetterTopic: 'settle.dead-letter.v1',
      groupId: 'settle-verifier',
      logger: pino({ level: 'silent' }),
      metrics,
    });

    await write(message, context, new PermanentMessageError('TEST.POISON', 'cannot be processed'));
    await write(message, context, new PermanentMessageError('TEST.POISON', 'cannot be processed'));
    await write(message, { ...context, topic: 'settle.consensus-results.v1' }, new Error('no code'));
    acknowledge = false;
    await expect(write(message, context, new PermanentMessageError('TEST.LOST', 'x'))).rejects.toThrow('broker unreachable');

    expect(sent).toEqual(['settle.dead-letter.v1', 'settle.dead-letter.v1', 'settle.dead-letter.v1']);
    const counted = (await metrics.deadLetterRecords.get()).values.map((v) => ({ ...v.labels, value: v.value }));
    expect(counted).toEqual([
      { topic: 'settle.transaction-events.v1', reason: 'TEST.POISON', value: 2 },
      { topic: 'settle.consensus-results.v1', reason: 'MESSAGE.UNPROCESSABLE', value: 1 },
    ]);
  });
});
