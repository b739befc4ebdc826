/**
 * When the VerifyCheckout waiters are checked (`VerificationWaiters.wake`): a pass after each
 * wake, one more after a pass during which a wake came (a waiter stored meanwhile), none while
 * idle, and a doubling pause after failed passes. The passes themselves run on PostgreSQL in
 * checkout-commands.int.spec.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Outbox } from '@settle/messaging';
import { createLogger, type Pool } from '@settle/platform';
import { VerificationWaiters, WAITER_POLL_MS } from '../src/commands/verification-waiters.js';
import { IngestionMetrics } from '../src/webhooks/webhook.metrics.js';

let waiters: VerificationWaiters | null = null;

afterEach(async () => {
  await waiters?.onApplicationShutdown();
  waiters = null;
});

/** Waiters whose passes are `passes`, called in turn (the last one again once they run out). */
function withPasses(passes: Array<() => Promise<boolean>>): { waiters: VerificationWaiters; calls: () => number } {
  let calls = 0;
  const w = new VerificationWaiters({} as Pool, {} as Outbox, { wake: () => undefined }, createLogger('waiters-test', 'fatal'), new IngestionMetrics());
  vi.spyOn(w, 'pass').mockImplementation(() => passes[Math.min(calls++, passes.length - 1)]!());
  waiters = w;
  return { waiters: w, calls: () => calls };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the waiters are checked after each wake, and only then', () => {
  it('one pass per wake while none is left; nothing more while idle', async () => {
    const { waiters: w, calls } = withPasses([async () => false]);
    w.wake();
    w.wake();
    await settle(WAITER_POLL_MS * 3);
    expect(calls()).toBe(1);
  });

  it('a wake during a pass that found nothing brings one more pass (a waiter stored meanwhile is not forgotten)', async () => {
    let finish!: (more: boolean) => void;
    const first = () => new Promise<boolean>((resolve) => (finish = resolve));
    const { waiters: w, calls } = withPasses([first, async () => false]);
    w.wake();
    await vi.waitFor(() => expect(calls()).toBe(1));
    w.wake();
    finish(false);
    await vi.waitFor(() => expect(calls()).toBe(2), { timeout: WAITER_POLL_MS * 5 });
    await settle(WAITER_POLL_MS * 3);
    expect(calls()).toBe(2);
  });

  it('keeps passing while waiters are left, and pauses longer after each failed pass', async () => {
    const { waiters: w, calls } = withPasses([
      async () => true,
      () => Promise.reject(new Error('database away')),
      () => Promise.reject(new Error('database away')),
      async () => false,
    ]);
    const started = Date.now();
    w.wake();
    await vi.waitFor(() => expect(calls()).toBe(4), { timeout: 5_000 });
    // 200 ms, 200 ms, then 400 ms and 800 ms after the two failures.
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAITER_POLL_MS * 2 + WAITER_POLL_MS * 2 + WAITER_POLL_MS * 4 - 50);
  });
});
