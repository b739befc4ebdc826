-- A vault's credentials (@settle/vault), applied to each vault schema with the search path set
-- to it, so the names here are unqualified: `vault` (the verifier's), `webhook_vault`
-- (ingestion's), `endpoint_vault` (the dispatcher's). No master key is ever stored here.
--
-- The first migration is the DDL the app applied at every boot before versioned migrations,
-- idempotent (IF NOT EXISTS), so a database made by that DDL upgrades to it as a no-op.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE TABLE IF NOT EXISTS credentials (
     provider text COLLATE "C" NOT NULL CHECK (char_length(provider) BETWEEN 1 AND 200),
     account text COLLATE "C" NOT NULL CHECK (char_length(account) BETWEEN 1 AND 200),
     name text COLLATE "C" NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
     version bigint NOT NULL CHECK (version >= 1),
     key_version text NOT NULL CHECK (key_version ~ '^v[1-9][0-9]{0,8}$'),
     data_key_wrapped bytea NOT NULL CHECK (length(data_key_wrapped) = 32),
     data_key_iv bytea NOT NULL CHECK (length(data_key_iv) = 12),
     data_key_tag bytea NOT NULL CHECK (length(data_key_tag) = 16),
     ciphertext bytea NOT NULL,
     ciphertext_iv bytea NOT NULL CHECK (length(ciphertext_iv) = 12),
     ciphertext_tag bytea NOT NULL CHECK (length(ciphertext_tag) = 16),
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     wrapped_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (provider, account, name)
   );

CREATE INDEX IF NOT EXISTS credentials_key_version ON credentials (key_version);
