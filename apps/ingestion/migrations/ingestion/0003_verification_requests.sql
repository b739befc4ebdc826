-- The latest verification request of each coalesced trigger per checkout (docs/webhooks.md,
-- "Spoofed webhooks and repeated verifications"): a spoofed webhook, `/verify` or `/attempts`
-- publishes no new `VerificationRequested` while the previous one of its trigger is unanswered,
-- or while a provider answer for the reference is younger than SETTLE_VERIFY_COALESCE_MS. Kept in
-- PostgreSQL, written in the transaction that enqueues the request, so the rule holds across
-- ingestion instances and restarts. One row per (reference, trigger), overwritten in place.

-- Up Migration

CREATE TABLE IF NOT EXISTS ingestion.verification_requests (
     reference text NOT NULL REFERENCES ingestion.checkouts (reference),
     trigger text NOT NULL,
     request_id text NOT NULL,
     requested_at timestamptz NOT NULL,
     PRIMARY KEY (reference, trigger)
   );
