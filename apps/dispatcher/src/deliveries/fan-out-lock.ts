/**
 * The lock between recording deliveries and re-enabling an endpoint (docs/delivery.md,
 * "Disabled endpoints"). A fan-out records a delivery for each enabled endpoint subscribed to
 * the event, holding this transaction-level advisory lock shared from its first statement, so
 * its insert's snapshot is taken under it; re-enabling an endpoint takes it exclusively before
 * it marks the endpoint enabled and records the deliveries it missed from `dispatcher.events`.
 * Every fan-out therefore either committed before that backfill reads the events (which it
 * then sees) or takes its snapshot after the endpoint is enabled (and records the delivery
 * itself): none falls between. Fan-outs share the lock with each other; only a re-enable
 * waits, and makes them wait, for as long as its backfill takes.
 */
const FAN_OUT_LOCK_KEY = `hashtext('settle-dispatcher:fan-out')`;

/** Taken by every fan-out transaction in BEGIN's round trip (`inTransaction`'s `firstStatement`). */
export const FAN_OUT_LOCK_SHARED = `SELECT pg_advisory_xact_lock_shared(${FAN_OUT_LOCK_KEY})`;

/** Taken by a re-enable, before the endpoint's row is updated. */
export const FAN_OUT_LOCK_EXCLUSIVE = `SELECT pg_advisory_xact_lock(${FAN_OUT_LOCK_KEY})`;

/**
 * How far before an endpoint was disabled its re-enable looks for events it has no delivery of,
 * milliseconds: a fan-out stamps `received_at` when its transaction begins, and one that began
 * just before the disable but inserted after it recorded no delivery for the endpoint; the
 * backfill's `ON CONFLICT DO NOTHING` leaves every event that has one untouched.
 */
export const DISABLE_RACE_MARGIN_MS = 60_000;
