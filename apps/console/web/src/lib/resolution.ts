// Following a State Mismatch resolution asked for on the transaction page (docs/state-machine.md,
// "Resolving a State Mismatch"): ingestion answers 202 before the ledger records it, so the page
// reads the transaction again until it shows the resolution, for a bounded time.

/** How long the page follows a requested resolution, milliseconds. */
export const RESOLUTION_FOLLOW_MS = 30_000;

/**
 * Whether the page still follows a resolution requested at `startedAt` (epoch milliseconds) at
 * `now`; it stops earlier once the transaction reads resolved.
 */
export function followingResolution(startedAt: number, now: number, followMs = RESOLUTION_FOLLOW_MS): boolean {
  return now - startedAt < followMs;
}
