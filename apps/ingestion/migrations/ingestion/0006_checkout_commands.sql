-- The checkout commands topic (docs/api.md, "Two ways in"): who sent each registration, and the
-- consumer's own bookkeeping, written in the same transaction as a batch's effects.

-- Up Migration

-- Who registered the checkout: `api_key:<first 12 hex of the key's SHA-256>` over HTTP (never the
-- key), `admin_key:<...>` for an admin's match of an unmatched payment, `kafka:<settle-producer
-- header>` over the topic; NULL for registrations made before.
ALTER TABLE ingestion.checkouts ADD COLUMN submitted_by text;

-- Per partition of the commands topic, the offset after the last record whose effects and result
-- are committed. A batch redelivered after a crash between the commit and the offset commit skips
-- what this says is done, so a command is answered once, never "accepted" then "duplicate".
CREATE TABLE ingestion.checkout_command_offsets (
  topic       text    NOT NULL,
  partition   integer NOT NULL,
  next_offset bigint  NOT NULL,
  PRIMARY KEY (topic, partition)
);

-- VerifyCheckout commands waiting for their verification's outcome: answered (one more result on
-- the results topic) once the read model reflects the request, or the checkout is terminal, or
-- at `wait_until`, whichever comes first, exactly as POST /v1/checkouts/{reference}/verify waits.
CREATE TABLE ingestion.verification_waiters (
  causation_id   text        PRIMARY KEY,
  reference      text        NOT NULL,
  correlation_id text        NOT NULL,
  request_id     text        NOT NULL,
  coalesced      boolean     NOT NULL,
  wait_until     timestamptz NOT NULL
);
CREATE INDEX verification_waiters_wait_until ON ingestion.verification_waiters (wait_until);
