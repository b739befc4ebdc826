import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KAFKAJS_REPAIRED_VERSION, repairKafkajsIdleTimer } from '@settle/messaging';

const require = createRequire(import.meta.url);
type Queue = {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
};
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: Queue };

/** A request queue in the state the method reads, its check counted. */
function queue(fields: Partial<Queue>): Queue & { checks: number } {
  const q = Object.assign(Object.create(RequestQueue.prototype) as Queue, { pending: [], throttledUntil: -1, throttleCheckTimeoutId: null, checks: 0 }, fields);
  q.checkPendingRequests = function (this: Queue & { checks: number }) {
    this.checks++;
    this.scheduleCheckPendingRequests();
  };
  return q;
}

describe("kafkajs's request queue, repaired (libs/messaging/src/kafkajs-idle-timer.ts)", () => {
  afterEach(() => vi.useRealTimers());

  it('applies to the installed kafkajs (a new version must be checked for the fix before this is moved)', () => {
    expect((require('kafkajs/package.json') as { version: string }).version).toBe(KAFKAJS_REPAIRED_VERSION);
    expect(repairKafkajsIdleTimer()).toBe(true);
  });

  it('arms no timer when nothing is pending and nothing throttled: an idle connection does not wake every millisecond', () => {
    repairKafkajsIdleTimer();
    vi.useFakeTimers();
    const idle = queue({});
    idle.scheduleCheckPendingRequests();
    vi.advanceTimersByTime(1_000);
    expect(idle.checks).toBe(0);
    expect(idle.throttleCheckTimeoutId).toBeNull();
  });

  it('checks a queue with requests pending every 10 ms, and one throttled when the throttle ends', () => {
    repairKafkajsIdleTimer();
    vi.useFakeTimers();
    const waiting = queue({ pending: [{}] });
    waiting.scheduleCheckPendingRequests();
    vi.advanceTimersByTime(9);
    expect(waiting.checks).toBe(0);
    vi.advanceTimersByTime(1);
    expect(waiting.checks).toBe(1);
    waiting.pending = [];
    vi.advanceTimersByTime(1_000);
    expect(waiting.checks).toBe(2);
    const throttled = queue({ throttledUntil: Date.now() + 50 });
    throttled.scheduleCheckPendingRequests();
    vi.advanceTimersByTime(49);
    expect(throttled.checks).toBe(0);
    vi.advanceTimersByTime(1);
    expect(throttled.checks).toBe(1);
  });
});
