/**
 * Sends the batch's heartbeat on a timer while the batch is handled, so a batch that waits on
 * slow I/O (a provider answering at its time-out, a database failing over) for longer than the
 * consumer group's session time-out does not cost the member its partitions. kafkajs sends a
 * heartbeat only when the loop asks for one (between batches, or `heartbeat()` inside one).
 *
 * At most one heartbeat is in flight. A failed heartbeat (the group is rebalancing, this member
 * was evicted) is left to the loop: its next own `heartbeat()` fails the same way and kafkajs
 * rejoins, and the batch's staleness checks stop it (`retry-in-place.ts`).
 *
 * @param heartbeat - the batch's heartbeat; kafkajs throttles it to the heartbeat interval.
 * @param intervalMs - milliseconds between calls (the consumer's heartbeat interval).
 * @returns a function that stops the timer; call it once the batch is handled.
 */
export function heartbeatWhileHandling(heartbeat: () => Promise<void>, intervalMs: number): () => void {
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = true;
    heartbeat()
      .catch(() => undefined)
      .finally(() => {
        inFlight = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
