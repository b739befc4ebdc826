-- Schema `ledger`, owned by the ledger projector (through @settle/ledger): the append-only,
-- hash-chained events, the streams, the global head, the append functions, the triggers that
-- refuse UPDATE, DELETE and TRUNCATE (docs/ledger.md), and the projector's outbox.
--
-- The first migration is the DDL the app applied at every boot before versioned migrations,
-- idempotent (IF NOT EXISTS), so a database made by that DDL upgrades to it as a no-op.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE SCHEMA IF NOT EXISTS ledger;

CREATE TABLE IF NOT EXISTS ledger.events (
     position bigint PRIMARY KEY,
     stream_id text NOT NULL,
     revision bigint NOT NULL,
     event_id uuid NOT NULL UNIQUE,
     event_type text NOT NULL,
     data jsonb NOT NULL,
     metadata jsonb NOT NULL,
     recorded_at timestamptz NOT NULL,
     stream_hash text NOT NULL,
     global_hash text NOT NULL,
     UNIQUE (stream_id, revision)
   );

ALTER TABLE ledger.events ADD COLUMN IF NOT EXISTS stream_hash text;

ALTER TABLE ledger.events ADD COLUMN IF NOT EXISTS global_hash text;

CREATE INDEX IF NOT EXISTS events_recorded_at ON ledger.events (recorded_at);

CREATE TABLE IF NOT EXISTS ledger.streams (
     stream_id text PRIMARY KEY,
     revision bigint NOT NULL,
     stream_hash text
   );

ALTER TABLE ledger.streams ADD COLUMN IF NOT EXISTS stream_hash text;

CREATE TABLE IF NOT EXISTS ledger.head (
     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
     position bigint NOT NULL,
     global_hash text NOT NULL
   );

INSERT INTO ledger.head (singleton, position, global_hash)
   VALUES (true, COALESCE((SELECT max(position) FROM ledger.events), 0), '0000000000000000000000000000000000000000000000000000000000000000')
   ON CONFLICT (singleton) DO NOTHING;

CREATE OR REPLACE FUNCTION ledger.append_events(
     p_stream text, p_revisions bigint[], p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[],
     p_recorded_at timestamptz, p_stream_hashes text[]
   ) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
   DECLARE
     v_position bigint;
     v_global text;
     i int;
   BEGIN
     SELECT position, global_hash INTO v_position, v_global FROM ledger.head FOR UPDATE;
     FOR i IN 1 .. array_length(p_ids, 1) LOOP
       v_position := v_position + 1;
       v_global := encode(sha256(convert_to(v_global || E'
' || v_position::text || E'
' || p_stream_hashes[i], 'UTF8')), 'hex');
       INSERT INTO ledger.events (position, stream_id, revision, event_id, event_type, data, metadata, recorded_at, stream_hash, global_hash)
       VALUES (v_position, p_stream, p_revisions[i], p_ids[i], p_types[i], p_data[i], p_metadata[i], p_recorded_at, p_stream_hashes[i], v_global);
       RETURN NEXT v_position;
     END LOOP;
     INSERT INTO ledger.streams (stream_id, revision, stream_hash)
     VALUES (p_stream, p_revisions[array_length(p_ids, 1)], p_stream_hashes[array_length(p_ids, 1)])
     ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision, stream_hash = EXCLUDED.stream_hash;
     UPDATE ledger.head SET position = v_position, global_hash = v_global;
   END $$;

CREATE OR REPLACE FUNCTION ledger.append_batch(
     p_streams text[], p_revisions bigint[], p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[],
     p_recorded_at timestamptz[], p_stream_hashes text[]
   ) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
   DECLARE
     v_start bigint;
     v_global text;
     v_globals text[] := '{}';
     n int := array_length(p_ids, 1);
     i int;
   BEGIN
     SELECT position, global_hash INTO v_start, v_global FROM ledger.head FOR UPDATE;
     FOR i IN 1 .. n LOOP
       v_global := encode(sha256(convert_to(v_global || E'
' || (v_start + i)::text || E'
' || p_stream_hashes[i], 'UTF8')), 'hex');
       v_globals := array_append(v_globals, v_global);
     END LOOP;
     INSERT INTO ledger.events (position, stream_id, revision, event_id, event_type, data, metadata, recorded_at, stream_hash, global_hash)
     SELECT v_start + u.n, u.stream_id, u.revision, u.event_id, u.event_type, u.data, u.metadata, u.recorded_at, u.stream_hash, u.global_hash
       FROM unnest(p_streams, p_revisions, p_ids, p_types, p_data, p_metadata, p_recorded_at, p_stream_hashes, v_globals)
            WITH ORDINALITY AS u(stream_id, revision, event_id, event_type, data, metadata, recorded_at, stream_hash, global_hash, n);
     UPDATE ledger.streams s SET revision = l.revision, stream_hash = l.stream_hash
       FROM (SELECT DISTINCT ON (stream_id) stream_id, revision, stream_hash
               FROM unnest(p_streams, p_revisions, p_stream_hashes) AS u(stream_id, revision, stream_hash)
              ORDER BY stream_id, revision DESC) AS l
      WHERE s.stream_id = l.stream_id;
     UPDATE ledger.head SET position = v_start + n, global_hash = v_global;
     RETURN QUERY SELECT v_start + g FROM generate_series(1, n) AS g;
   END $$;

CREATE OR REPLACE FUNCTION ledger.refuse_mutation() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'ledger.events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
   END $$;

CREATE OR REPLACE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON ledger.events
     FOR EACH ROW EXECUTE FUNCTION ledger.refuse_mutation();

CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON ledger.events
     FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_mutation();

CREATE OR REPLACE FUNCTION ledger.refuse_head_rewind() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP <> 'UPDATE' OR NEW.position <= OLD.position THEN
       RAISE EXCEPTION 'ledger.head only moves forward: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
     END IF;
     RETURN NEW;
   END $$;

CREATE OR REPLACE TRIGGER head_forward_only BEFORE UPDATE OR DELETE ON ledger.head
     FOR EACH ROW EXECUTE FUNCTION ledger.refuse_head_rewind();

CREATE OR REPLACE TRIGGER head_no_truncate BEFORE TRUNCATE ON ledger.head
     FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_head_rewind();

DO $$ BEGIN
     CREATE ROLE settle_ledger_writer NOLOGIN;
   EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
   END $$;

REVOKE ALL ON ledger.events FROM PUBLIC;

GRANT USAGE ON SCHEMA ledger TO settle_ledger_writer;

REVOKE UPDATE, DELETE, TRUNCATE ON ledger.events FROM settle_ledger_writer;

GRANT SELECT, INSERT ON ledger.events TO settle_ledger_writer;

GRANT SELECT, INSERT, UPDATE ON ledger.streams TO settle_ledger_writer;

GRANT SELECT, UPDATE ON ledger.head TO settle_ledger_writer;

CREATE SCHEMA IF NOT EXISTS ledger;

CREATE TABLE IF NOT EXISTS ledger.outbox (
       id bigserial PRIMARY KEY,
       topic text NOT NULL,
       message_key text NOT NULL,
       event_type text NOT NULL,
       payload jsonb NOT NULL,
       correlation_id text NOT NULL,
       causation_id text,
       created_at timestamptz NOT NULL DEFAULT now()
     );

DO $$ BEGIN
       IF EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = 'ledger' AND table_name = 'outbox' AND column_name = 'published_at') THEN
         DELETE FROM ledger.outbox WHERE published_at IS NOT NULL;
         ALTER TABLE ledger.outbox DROP COLUMN published_at;
       END IF;
     END $$;
