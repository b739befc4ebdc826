-- Data subjects' keys (docs/privacy.md, "Crypto-shredding"), in the schema of the app that owns
-- them. A key is found by subject_ref (an HMAC of the subject under the index key, never the
-- subject itself) and named by key_id in every value sealed under it. Erasure deletes the row and
-- keeps a tombstone, so a value sealed under a destroyed key reads as erased, not as missing.
CREATE TABLE IF NOT EXISTS subject_keys (
  key_id uuid PRIMARY KEY,
  subject_ref text NOT NULL UNIQUE CHECK (subject_ref ~ '^[0-9a-f]{64}$'),
  kind text NOT NULL CHECK (kind IN ('user', 'customer')),
  key_version text NOT NULL CHECK (key_version ~ '^v[1-9][0-9]*$'),
  data_key_wrapped bytea NOT NULL CHECK (octet_length(data_key_wrapped) = 32),
  data_key_iv bytea NOT NULL CHECK (octet_length(data_key_iv) = 12),
  data_key_tag bytea NOT NULL CHECK (octet_length(data_key_tag) = 16),
  created_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS erased_subject_keys (
  key_id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('user', 'customer')),
  erased_at timestamptz NOT NULL
);
