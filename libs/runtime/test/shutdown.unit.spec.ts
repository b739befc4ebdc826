import { describe, expect, it } from 'vitest';
import { createLogger } from '@settle/platform';
import { stopInOrder } from '@settle/runtime';

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
    const progress = { step: null as string | null };
    const seen: Array<string | null> = [];
    const noting = (name: string, ms: number) => ({ name, stop: async () => (seen.push(progress.step), step(name, ms).stop()) });
    await stopInOrder(
      [noting('consumers', 20), noting('hook', 0), noting('relays', 10), noting('metrics', 0), noting('producer', 5), noting('pool', 0)],
      logger,
      progress,
    );
    expect(order).toEqual(['consumers', 'hook', 'relays', 'metrics', 'producer', 'pool']);
    // The running step is noted for the log line of a shutdown that overruns its bound.
    expect(seen).toEqual(order);
    expect(progress.step).toBeNull();
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
