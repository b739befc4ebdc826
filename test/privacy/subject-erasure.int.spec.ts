import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LEDGER_MIGRATIONS,
  PostgresLedger,
  PRIVACY_ERASURE_STREAM,
  READ_MODEL_MIGRATIONS,
  readModelRowsOf,
  SubjectErasure,
  normaliseSubject,
  countMissingSubjectKeys,
  subjectErasedOf,
  verifyLedger,
  upsertLedgerStatuses,
  writeReadModelRows,
} from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
import { generateKey, MasterKeyRing, openSubjectKeys, privacyVaultMigrations, type SubjectKeys } from '@settle/vault';
import { INGESTION_MIGRATIONS } from '../../apps/ingestion/src/persistence/schema.js';
import { VERIFIER_MIGRATIONS } from '../../apps/verifier/src/schema.js';

/**
 * Erasure of a data subject over the real schemas (docs/privacy.md, "Erasure"): the registrations,
 * the verifier's copies and unmatched payments, the privacy vault, the ledger and its read models.
 */
let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
let ledger: PostgresLedger;
let keys: SubjectKeys;
let erasure: SubjectErasure;

beforeAll(async () => {
  db = await createTestDatabase('settle_erasure');
  pool = createPool(db.url, 4);
  await migrateSchemas(pool, [INGESTION_MIGRATIONS, VERIFIER_MIGRATIONS, LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS, ...privacyVaultMigrations()]);
  ledger = new PostgresLedger(pool);
  keys = await openSubjectKeys(pool, MasterKeyRing.from([['v1', generateKey()]]));
  erasure = new SubjectErasure(pool, ledger, keys);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const CHECKS = (email: string) => [
  { check: 'transaction_identity', passed: true, code: null, expected: 'r', observed: 'r' },
  { check: 'customer', passed: true, code: null, expected: `email:${email[0]}•••@example.com`, observed: `email:${email[0]}•••@example.com` },
];

/** A settled checkout of `user` paid by `email`, as ingestion, the verifier and the read model keep it. */
async function checkout(user: string, email: string, phone: string | null = null): Promise<string> {
  const reference = `ref_${randomBytes(5).toString('hex')}`;
  await pool.query(
    `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement, request_sha256, correlation_id, registered_at, access_period)
     VALUES ($1, 'paystack', 250000, 'NGN', $2, $3, $4, 'pro', repeat('a', 64), $1, now(), 'P1M')`,
    [reference, user, email, phone],
  );
  await pool.query(
    `INSERT INTO verifier.transactions (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement, correlation_id, status, entitlement_status, access_period)
     VALUES ($1, 'paystack', 250000, 'NGN', $2, $3, $4, 'pro', $1, 'SETTLED_CONSENSUS', 'UNLOCKED', 'P1M')`,
    [reference, user, email, phone],
  );
  await pool.query(
    `INSERT INTO read_model.transaction_status (reference, provider, state, entitlement_status, amount_minor, currency, checks, ledger_revision, updated_at)
     VALUES ($1, 'paystack', 'SETTLED_CONSENSUS', 'UNLOCKED', 250000, 'NGN', $2::jsonb, 0, now())`,
    [reference, JSON.stringify(CHECKS(email))],
  );
  return reference;
}

/** An unmatched payment the provider reported for `email` and `phone`, its values sealed in the read model as the verifier seals them. */
async function unmatched(email: string, phone: string): Promise<{ reference: string; sealedEmail: string }> {
  const reference = `unm_${randomBytes(5).toString('hex')}`;
  await pool.query(
    `INSERT INTO verifier.unmatched_payments (reference, provider, correlation_id, status, first_seen_at, amount_minor, currency, customer_email, customer_phone)
     VALUES ($1, 'paystack', $1, 'recorded', 0, 1000, 'NGN', $2, $3)`,
    [reference, email, phone],
  );
  const key = await keys.keyFor({ kind: 'customer', id: email.toLowerCase() });
  const sealedEmail = key.seal('customer_email', email);
  await pool.query(
    `INSERT INTO read_model.unmatched_payments (reference, provider, status, amount_minor, currency, customer_email, customer_phone, customer_email_masked, terms_verified, verified_at, ledger_revision)
     VALUES ($1, 'paystack', 'open', 1000, 'NGN', $2, $3, 'c•••@example.com', true, now(), 0)`,
    [reference, sealedEmail, key.seal('customer_phone', phone)],
  );
  return { reference, sealedEmail };
}

const request = { requestedBy: 'cli:ops', approvedBy: null, reason: 'ticket DPO-1' };

describe('SubjectErasure (docs/privacy.md, "Erasure")', () => {
  it('erases a customer: the key destroyed, the plaintext cleared, the fact recorded with no personal data, the check erased', async () => {
    const email = `Carol.${randomBytes(3).toString('hex')}@Example.com`;
    const national = randomBytes(3).readUIntBE(0, 3).toString().padStart(7, '0').slice(0, 7);
    const phone = `+25471${national}`;
    const paid = await checkout('user-carol', email);
    const other = await checkout('user-dave', `dave.${randomBytes(3).toString('hex')}@example.com`);
    // The provider stored the phone as it sent it: international digits without the plus.
    const { reference: unmatchedRef, sealedEmail } = await unmatched(email, phone.slice(1));
    expect(await keys.reveal('customer_email', sealedEmail)).toEqual({ status: 'open', value: email });

    // By the phone, typed another way: the unmatched payment brings the email, the same person's
    // other identifier, and the email brings the registration.
    const byPhone = await erasure.erase({ kind: 'customer', id: `+254 71${national.slice(0, 1)} ${national.slice(1, 4)} ${national.slice(4)}` }, request);

    expect(byPhone.unmatched_references).toEqual([unmatchedRef]);
    expect(byPhone.transaction_references).toEqual([paid]);
    expect(byPhone.destroyed_key_ids).toHaveLength(1);
    expect((await keys.reveal('customer_email', sealedEmail)).status).toBe('erased');
    const report = byPhone;
    const byEmail = await erasure.erase({ kind: 'customer', id: email }, request);
    expect(byEmail.destroyed_key_ids).toEqual([]);
    expect(byEmail.erased.filter((e) => e.place.startsWith('ingestion') || e.place.startsWith('verifier')).every((e) => e.rows === 0)).toBe(true);
    const { rows } = await pool.query(
      'SELECT customer_email, customer_phone, request_sha256 FROM ingestion.checkouts WHERE reference = ANY($1) ORDER BY reference',
      [[paid]],
    );
    expect(rows).toEqual([{ customer_email: null, customer_phone: null, request_sha256: 'erased' }]);
    const verifier = await pool.query('SELECT customer_email, customer_erased_at FROM verifier.transactions WHERE reference = $1', [paid]);
    expect(verifier.rows[0].customer_email).toBeNull();
    expect(verifier.rows[0].customer_erased_at).toBeInstanceOf(Date);
    expect((await pool.query('SELECT customer_email FROM verifier.unmatched_payments WHERE reference = $1', [unmatchedRef])).rows[0].customer_email).toBeNull();
    const shown = await pool.query('SELECT customer_email, customer_email_masked FROM read_model.unmatched_payments WHERE reference = $1', [unmatchedRef]);
    expect(shown.rows[0]).toEqual({ customer_email: null, customer_email_masked: 'erased' });
    // Another customer's registration is untouched.
    expect((await pool.query('SELECT customer_email FROM ingestion.checkouts WHERE reference = $1', [other])).rows[0].customer_email).toMatch(/^dave\./);

    const status = await pool.query<{ checks: Array<{ check: string; expected: string; observed: string }> }>(
      'SELECT checks FROM read_model.transaction_status WHERE reference = $1',
      [paid],
    );
    expect(status.rows[0]!.checks.find((c) => c.check === 'customer')).toMatchObject({ expected: 'erased', observed: 'erased' });
    expect(status.rows[0]!.checks.find((c) => c.check === 'transaction_identity')).toMatchObject({ expected: 'r' });

    // The facts name references and key ids, never the subject; the chains hold.
    const facts = (await ledger.readStream(PRIVACY_ERASURE_STREAM)).map((e) => subjectErasedOf(e));
    expect(facts.map((f) => f.erasure_id)).toEqual(expect.arrayContaining([report.erasure_id, byEmail.erasure_id]));
    const text = JSON.stringify(facts).toLowerCase();
    expect(text).not.toContain(email.toLowerCase());
    expect(text).not.toContain(phone);
    expect(facts.find((f) => f.erasure_id === byEmail.erasure_id)!.remaining.map((r) => r.place)).toContain('the payment provider');
    expect((await verifyLedger(ledger)).broken).toBeNull();
  });

  it('erases a user with the customers of their registrations, and a second run finds nothing left', async () => {
    const user = `user-${randomBytes(4).toString('hex')}`;
    const email = `erin.${randomBytes(3).toString('hex')}@example.com`;
    const first = await checkout(user, email, '+254700000123');
    const second = await checkout(user, email);
    const { sealedEmail } = await unmatched(email, '+254700000999');
    const userKey = await keys.keyFor({ kind: 'user', id: user });
    const sealedByUser = userKey.seal('subject', `user:${user}`);

    const report = await erasure.erase({ kind: 'user', id: user }, request);

    expect(report.transaction_references).toEqual([first, second].sort());
    expect(report.unmatched_references).toHaveLength(1);
    expect((await keys.reveal('subject', sealedByUser)).status).toBe('erased');
    expect((await keys.reveal('customer_email', sealedEmail)).status).toBe('erased');
    expect(report.erased.find((e) => e.place === 'ingestion.checkouts')!.rows).toBe(2);

    const again = await erasure.erase({ kind: 'user', id: user }, request);
    expect(again.destroyed_key_ids).toEqual([]);
    expect(again.erased.filter((e) => e.place.startsWith('ingestion') || e.place.startsWith('verifier')).every((e) => e.rows === 0)).toBe(true);
  });

  it('the projection of SubjectErased (what a rebuild replays) marks the check erased again', async () => {
    const facts = (await ledger.readStream(PRIVACY_ERASURE_STREAM)).filter((e) => subjectErasedOf(e).transaction_references.length > 0);
    const fact = facts.at(-1)!;
    const [reference] = subjectErasedOf(fact).transaction_references;
    // As a replay of the payment's own events leaves it: the masked values of the check.
    await pool.query('UPDATE read_model.transaction_status SET checks = $2::jsonb WHERE reference = $1', [reference, JSON.stringify(CHECKS('x@example.com'))]);
    const rows = readModelRowsOf([fact]);
    expect(rows.erasures).toEqual([
      { transactionReferences: subjectErasedOf(fact).transaction_references, unmatchedReferences: subjectErasedOf(fact).unmatched_references },
    ]);
    await writeReadModelRows(pool, rows);
    const { rows: status } = await pool.query<{ checks: Array<{ check: string; expected: string }> }>(
      'SELECT checks FROM read_model.transaction_status WHERE reference = $1',
      [reference],
    );
    expect(status[0]!.checks.map((c) => c.expected)).toEqual(['r', 'erased']);
  });

  it('counts sealed values whose key is gone without an erasure (a restore that lost keys), not those of erased subjects', async () => {
    const email = `lost.${randomBytes(3).toString('hex')}@example.com`;
    const { sealedEmail } = await unmatched(email, '+254700000555');
    // An erased subject's value left in place (its key destroyed, tombstoned) is not missing: it reads erased.
    const erasedEmail = `gone.${randomBytes(3).toString('hex')}@example.com`;
    await unmatched(erasedEmail, '+254700000556');
    await keys.erase({ kind: 'customer', id: erasedEmail });
    const before = await countMissingSubjectKeys(pool);
    expect(before.missing).toBe(0);
    expect(before.sealedValues).toBeGreaterThanOrEqual(4);
    const keyId = sealedEmail.split(':')[2];
    await pool.query('DELETE FROM privacy_keys.subject_keys WHERE key_id = $1', [keyId]);
    expect(await countMissingSubjectKeys(pool)).toMatchObject({ missing: 1 });
    expect(await keys.reveal('customer_email', sealedEmail)).toEqual({ status: 'unavailable' });
  });

  it('looks a subject up as it is sealed: an email lower case, a phone in E.164 however typed', () => {
    expect(normaliseSubject({ kind: 'customer', id: ' Carol@Example.COM ' })).toEqual({ kind: 'customer', id: 'carol@example.com' });
    expect(normaliseSubject({ kind: 'customer', id: '+254 712 345 678' })).toEqual({ kind: 'customer', id: '+254712345678' });
    expect(normaliseSubject({ kind: 'user', id: ' User-42 ' })).toEqual({ kind: 'user', id: 'User-42' });
    expect(() => normaliseSubject({ kind: 'user', id: ' ' })).toThrow(/non-empty/);
  });

  it('changes nothing when the fact cannot be recorded, and refuses a reason that names the person', async () => {
    const email = `jack.${randomBytes(3).toString('hex')}@example.com`;
    const paid = await checkout('user-jack', email, '+254712000111');
    const { sealedEmail } = await unmatched(email, '+254712000111');
    const down = new SubjectErasure(pool, { append: () => Promise.reject(new Error('the ledger is down')) }, keys);
    await expect(down.erase({ kind: 'customer', id: email }, request)).rejects.toThrow(/ledger is down/);
    for (const reason of [`request of ${email.toUpperCase()}`, 'caller +254 712 000 111 asked', 'user user-jack asked']) {
      await expect(erasure.erase({ kind: 'user', id: 'user-jack' }, { ...request, reason })).rejects.toMatchObject({ code: 'PRIVACY.REASON_NAMES_SUBJECT' });
    }
    // Nothing was written or destroyed.
    expect((await erasure.find({ kind: 'user', id: 'user-jack' })).transactions).toEqual([paid]);
    expect((await keys.reveal('customer_email', sealedEmail)).status).toBe('open');
    expect((await pool.query('SELECT customer_email FROM ingestion.checkouts WHERE reference = $1', [paid])).rows[0].customer_email).toBe(email);
    // A user id that merely appears inside another word is not refused.
    const done = await erasure.erase({ kind: 'user', id: 'user-jack' }, { ...request, reason: 'DPO-12 of 2026-11-29 (user-jackson-style ids are fine)' });
    expect(done.transaction_references).toEqual([paid]);
    expect((await keys.reveal('customer_email', sealedEmail)).status).toBe('erased');
  });

  it('re-applies the recorded erasures after a restore brought back their rows and keys', async () => {
    const email = `kate.${randomBytes(3).toString('hex')}@example.com`;
    const paid = await checkout('user-kate', email);
    const { sealedEmail } = await unmatched(email, '+254712000222');
    const keyId = sealedEmail.split(':')[2]!;
    const backup = (await pool.query('SELECT * FROM privacy_keys.subject_keys WHERE key_id = $1', [keyId])).rows[0] as Record<string, unknown>;
    const report = await erasure.erase({ kind: 'customer', id: email }, request);
    expect(report.destroyed_key_ids).toEqual([keyId]);
    // The restore: the key row back, its tombstone gone, the registration's email back.
    await pool.query('DELETE FROM privacy_keys.erased_subject_keys WHERE key_id = $1', [keyId]);
    await pool.query(`INSERT INTO privacy_keys.subject_keys SELECT * FROM jsonb_populate_record(NULL::privacy_keys.subject_keys, $1::jsonb)`, [
      JSON.stringify({
        ...backup,
        data_key_wrapped: `\\x${(backup.data_key_wrapped as Buffer).toString('hex')}`,
        data_key_iv: `\\x${(backup.data_key_iv as Buffer).toString('hex')}`,
        data_key_tag: `\\x${(backup.data_key_tag as Buffer).toString('hex')}`,
      }),
    ]);
    await pool.query('UPDATE ingestion.checkouts SET customer_email = $2 WHERE reference = $1', [paid, email]);
    expect((await keys.reveal('customer_email', sealedEmail)).status).toBe('open');

    const facts = (await ledger.readStream(PRIVACY_ERASURE_STREAM)).map((e) => subjectErasedOf(e));
    expect(await erasure.reapply(facts)).toMatchObject({ facts: facts.length, keysDestroyed: 1 });
    expect((await keys.reveal('customer_email', sealedEmail)).status).toBe('erased');
    expect((await pool.query('SELECT customer_email FROM ingestion.checkouts WHERE reference = $1', [paid])).rows[0].customer_email).toBeNull();
  });

  it('keeps the check erased when an outcome decided before the erasure is projected after it', async () => {
    const email = `liam.${randomBytes(3).toString('hex')}@example.com`;
    const paid = await checkout('user-liam', email);
    await erasure.erase({ kind: 'customer', id: email }, request);
    await upsertLedgerStatuses(pool, [
      {
        reference: paid,
        provider: 'paystack',
        state: 'SETTLED_CONSENSUS',
        entitlementStatus: 'UNLOCKED',
        amountMinor: 250_000,
        currency: 'NGN',
        checks: CHECKS(email),
        lastVerdict: 'cleared',
        lastTrigger: 'webhook_received',
        ledgerRevision: 1,
        updatedAt: new Date(),
      },
    ]);
    const { rows } = await pool.query<{ checks: Array<{ check: string; expected: string; observed: string }>; ledger_revision: string }>(
      'SELECT checks, ledger_revision FROM read_model.transaction_status WHERE reference = $1',
      [paid],
    );
    expect(Number(rows[0]!.ledger_revision)).toBe(1);
    expect(rows[0]!.checks.map((c) => [c.check, c.expected, c.observed])).toEqual([
      ['transaction_identity', 'r', 'r'],
      ['customer', 'erased', 'erased'],
    ]);
  });
});
