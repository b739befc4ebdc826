-- Events by when they were received: re-enabling an endpoint records the deliveries it missed
-- while it was disabled, the events received since then (docs/delivery.md, "Disabled
-- endpoints"), and a recovery reads the events since a time. A BRIN index: the table only ever
-- grows in received_at order, and a block range summary costs the inserts next to nothing,
-- where a B-tree would add an entry to every event's insert.

-- Up Migration

CREATE INDEX IF NOT EXISTS events_received_at ON dispatcher.events USING brin (received_at);
