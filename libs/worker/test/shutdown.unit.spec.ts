import { describe, expect, it } from 'vitest';
import { createLogger } from '@settle/platform';
import { stopInOrder } from '@settle/worker';

const logger = createLogger('shutdown-unit', 'silent');

describe('stopInOrder', () => {
  it('runs every step in the order given, each after the previous one settled', async () => {
    const order: string[] = [];
    const step = (name: string, ms: number) => ({
      name,
      stop: async () => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        order.push(name);
      },
    });
    await stopInOrder([step('consumers', 20), step('hook', 0), step('relays', 10), step('metrics', 0), step('producer', 5), step('pool', 0)], logger);
    expect(order).toEqual(['consumers', 'hook', 'relays', 'metrics', 'producer', 'pool']);
  });

  it('still runs the later steps when one fails, then throws the first failure', async () => {
    const order: string[] = [];
    const first = new Error('metrics endpoint would not close');
    await expect(
      stopInOrder(
        [
          { name: 'relays', stop: () => void order.push('relays') },
          {
            name: 'metrics',
            stop: () => {
              throw first;
            },
          },
          { name: 'producer', stop: () => Promise.reject(new Error('second failure')) },
          { name: 'pool', stop: () => void order.push('pool') },
        ],
        logger,
      ),
    ).rejects.toBe(first);
    expect(order).toEqual(['relays', 'pool']);
  });
});
