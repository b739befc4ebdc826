import { createRequire } from 'node:module';

/**
 * The kafkajs version whose request queue this module repairs. Another version is left as it is
 * (a newer release may carry the fix, or change the queue): {@link repairKafkajsIdleTimer} then
 * reports `false` and the test of this module fails, so an upgrade is a decision, not an accident.
 */
export const KAFKAJS_REPAIRED_VERSION = '2.2.4';

/** The fields of kafkajs's `RequestQueue` the repaired method reads and writes. */
interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
}

/** kafkajs's interval between checks of a queue with requests waiting, milliseconds (`CHECK_PENDING_REQUESTS_INTERVAL`). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

let repaired: boolean | null = null;

/**
 * Stops kafkajs 2.2.4's idle spin (tulios/kafkajs issues #1556, #1604 and #1704; the fix of pull
 * request #1667, not released): once a broker connection has had one answer, its request queue's
 * `scheduleCheckPendingRequests` arms a timer with a negative delay whenever nothing is throttled,
 * which Node runs after 1 ms, and the check it runs arms the next one: about 900 wake-ups a second
 * per process, 1.8 % of a core each for nothing (docs/benchmarks.md, "Idle"). Repaired, the queue
 * arms a timer only when it has something to wait for: requests pending (checked every 10 ms, as
 * before) or a throttle to wait out (at its end). A request pushed while nothing waits arms one
 * itself (`push` calls this method), and every answer checks the queue (`fulfillRequest`), so no
 * request waits longer than before.
 *
 * Idempotent; applied by {@link createKafka} before any client exists.
 *
 * @returns whether the installed kafkajs is the version repaired (and so the repair applies).
 */
export function repairKafkajsIdleTimer(): boolean {
  if (repaired !== null) return repaired;
  const require = createRequire(import.meta.url);
  const version = (require('kafkajs/package.json') as { version: string }).version;
  repaired = version === KAFKAJS_REPAIRED_VERSION;
  if (!repaired) return false;
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueueState & { scheduleCheckPendingRequests(): void } };
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueState): void {
    if (this.throttleCheckTimeoutId) return;
    const throttledFor = this.throttledUntil - Date.now();
    // Nothing waits and nothing is throttled: nothing to check until a request is pushed or answered.
    if (this.pending.length === 0 && throttledFor <= 0) return;
    const delay = throttledFor > 0 ? throttledFor : CHECK_PENDING_REQUESTS_INTERVAL_MS;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, delay);
  };
  return true;
}
