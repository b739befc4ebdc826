-- Schema `console`, owned by the console app (docs/console.md): its users, their sessions and
-- the failed sign-ins that lock an email out. The console reads `read_model`, `ingestion` and
-- `ledger` but never writes them.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE SCHEMA IF NOT EXISTS console;

-- Emails are stored lower-cased (the app normalises them), so the unique index is the identity.
CREATE TABLE IF NOT EXISTS console.users (
  id bigserial PRIMARY KEY,
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  -- argon2id, PHC string format ($argon2id$v=19$m=...,t=...,p=...$salt$hash).
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  created_at timestamptz NOT NULL,
  disabled boolean NOT NULL DEFAULT false
);

-- A session's id is the SHA-256 (hex) of the random token held in the cookie: the token itself
-- is never stored, so a read of this table signs nobody in.
CREATE TABLE IF NOT EXISTS console.sessions (
  id text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES console.users (id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS sessions_user_id ON console.sessions (user_id);
CREATE INDEX IF NOT EXISTS sessions_expires_at ON console.sessions (expires_at);

-- One row per failed sign-in, by the (lower-cased) email tried, known or not.
CREATE TABLE IF NOT EXISTS console.login_failures (
  id bigserial PRIMARY KEY,
  email text NOT NULL,
  at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS login_failures_email_at ON console.login_failures (email, at);
