-- When each console user last signed in, for the Users page (docs/console.md, "Users"): set by
-- every successful sign-in, `NULL` for a user who never did.

-- Up Migration

ALTER TABLE console.users ADD COLUMN IF NOT EXISTS last_sign_in_at timestamptz;
