import { randomUUID } from 'node:crypto';
import { toE164 } from '@settle/domain';
import { inTransaction, type Pool, type PoolClient } from '@settle/platform';
import { PRIVACY_ERASURE_STREAM, subjectErasedEvent, type SubjectErasedData } from '../events/subject-erased.js';
import type { LedgerStore } from '../ports/ledger.port.js';
import { applyErasures } from '../projection/erasure-read-models.js';

/** A data subject (docs/privacy.md, "Whose data, and what"): a merchant's user by `user_id`, or a customer by email or E.164 phone. */
export interface ErasureSubject {
  readonly kind: 'user' | 'customer';
  readonly id: string;
}

/**
 * What erasure needs of the privacy vault: structurally `SubjectKeys` of `@settle/vault`, which
 * destroys a subject's data key (docs/privacy.md, "Crypto-shredding").
 */
export interface SubjectKeyEraser {
  /** @returns the destroyed key's id, or `null` when the subject had none. */
  erase(subject: ErasureSubject): Promise<{ keyId: string } | null>;
}

/** Who asked for an erasure and why (recorded in the `SubjectErased` fact; no personal data of the subject). */
export interface ErasureRequest {
  /** An operator's email, or `cli:<account>` for the command line. */
  readonly requestedBy: string;
  /** The second admin who approved it in the console; `null` from the command line. */
  readonly approvedBy: string | null;
  /** Why (a ticket number, "GDPR art. 17 request of 2026-11-29"). Never the subject's identifier. */
  readonly reason: string;
}

/** What an erasure did: the recorded fact's data, and its ledger position. */
export interface ErasureReport extends SubjectErasedData {
  /** Global position of the `SubjectErased` fact. */
  readonly ledger_position: number;
}

/**
 * What stays after every erasure, and why (docs/privacy.md, "What remains after an erasure").
 * Listed in every report and fact, so an auditor reads the same answer the subject was given.
 */
export const REMAINS_AFTER_ERASURE: ReadonlyArray<{ place: string; why: string }> = [
  {
    place: 'the payment provider',
    why: 'the provider keeps its own records of the payment as a controller in its own right; ask it separately',
  },
  {
    place: 'ledger: the customer check’s masked forms',
    why: 'events written when the payment was verified keep masked forms (c•••@example.com, +254•••678) as the record of what was compared; the chains forbid rewriting them and they do not identify a person alone',
  },
  {
    place: 'ledger, read models and deliveries: user_id',
    why: 'the merchant’s pseudonymous identifier organises the ledger’s streams and the delivered entitlement events; the merchant holds (and erases) the link to a person',
  },
  {
    place: 'Kafka: transaction-events, checkout-commands and the dead-letter topic',
    why: 'records already written carry the registration’s email and phone until the topics’ retention.ms passes (7 days by default)',
  },
  {
    place: 'database backups',
    why: 'until they age out; a restore must be followed by re-running the erasures recorded in the ledger’s privacy-erasures stream',
  },
];

/** The tables erasure clears, when the database has them (an app that never ran against it has no schema). */
const TABLES = {
  checkouts: 'ingestion.checkouts',
  verifierTransactions: 'verifier.transactions',
  verifierUnmatched: 'verifier.unmatched_payments',
} as const;

/**
 * Erases a data subject (docs/privacy.md, "Erasure"; GDPR article 17) without breaking the
 * ledger's chains:
 *
 * 1. finds the payments whose registration names the subject (a user by `user_id`, a customer by
 *    email, case-insensitive, or phone), and the unmatched payments whose provider reported the
 *    customer (with the other identifier the provider gave, which is part of the same subject);
 * 2. destroys the subjects' data keys in the privacy vault: every value sealed under them, in the
 *    ledger, on Kafka and in the read models, reads `erased` from now on;
 * 3. records the erasure as a `SubjectErased` fact in the ledger's `privacy-erasures` stream,
 *    before the plaintext is cleared, so an erasure that fails half way is on record and running
 *    it again (it finds the same rows) completes it;
 * 4. clears, in one transaction, the customer's email and phone where Settle keeps them in
 *    plaintext for its work: the registrations (and their `request_sha256`, a hash over them),
 *    the verifier's copies (marked erased, so a later check records `erased` and passes) and the
 *    verifier's unmatched payments. (The console's match proposals hold the customer sealed.)
 *
 * In the same transaction as step 4 it marks the read models as the projection of `SubjectErased`
 * would (a rebuild replays the fact): the customer check reads `erased`. Running it twice is
 * harmless: the second finds nothing left and says so.
 *
 * @throws the ledger's and the database's errors (nothing is cleared when the fact could not be recorded).
 */
export class SubjectErasure {
  constructor(
    private readonly pool: Pool,
    private readonly ledger: Pick<LedgerStore, 'append'>,
    private readonly keys: SubjectKeyEraser,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async erase(subject: ErasureSubject, request: ErasureRequest): Promise<ErasureReport> {
    const target = normaliseSubject(subject);
    const present = await this.presentTables();
    const found = await this.find(target, present);
    const erasureId = randomUUID();
    const planned: SubjectErasedData = {
      erasure_id: erasureId,
      subject_kind: target.kind,
      transaction_references: found.transactions,
      unmatched_references: found.unmatched,
      destroyed_key_ids: [],
      erased: [],
      remaining: [...REMAINS_AFTER_ERASURE],
      requested_by: request.requestedBy,
      approved_by: request.approvedBy,
      reason: request.reason,
      erased_at: this.now().toISOString(),
    };
    const destroyed: string[] = [];
    for (const s of found.subjects) {
      const key = await this.keys.erase(s);
      if (key) destroyed.push(key.keyId);
    }
    const erased = [
      { place: 'privacy_keys.subject_keys', rows: destroyed.length, how: 'data keys destroyed: sealed values read erased' },
      ...(await this.countPlaintext(found, present)),
    ];
    const data: SubjectErasedData = { ...planned, destroyed_key_ids: destroyed, erased };
    // Recorded before the plaintext is cleared: a failure after this leaves the fact, and re-running finds the rows again.
    const appended = await this.ledger.append(PRIVACY_ERASURE_STREAM, [subjectErasedEvent(data)], 'any');
    await inTransaction(this.pool, async (client) => {
      await this.clear(client, found, present);
      // The projector projects what it appends; this fact is appended here, so its read-model marks are written here (a rebuild replays them).
      await applyErasures(client, [{ transactionReferences: found.transactions, unmatchedReferences: found.unmatched }]);
    });
    return { ...data, ledger_position: appended.positions[0] ?? 0 };
  }

  private async presentTables(): Promise<Set<string>> {
    const names = Object.values(TABLES);
    const { rows } = await this.pool.query<{ name: string }>('SELECT n AS name FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NOT NULL', [names]);
    return new Set(rows.map((r) => r.name));
  }

  /**
   * The payments, unmatched payments and subjects (whose keys are destroyed) the erasure covers.
   * A user's customer identifiers are those of the user's registrations; a customer's unmatched
   * payments bring the other identifier the provider reported with them.
   */
  private async find(subject: ErasureSubject, present: Set<string>): Promise<Found> {
    const transactions = new Set<string>();
    const unmatched = new Set<string>();
    const identifiers = new Set<string>(subject.kind === 'customer' ? [subject.id] : []);
    const addIdentifiers = (r: { customer_email: string | null; customer_phone: string | null }) => {
      for (const id of [r.customer_email?.trim().toLowerCase(), r.customer_phone?.trim()]) if (id) identifiers.add(id);
    };
    for (const table of [TABLES.checkouts, TABLES.verifierTransactions]) {
      if (!present.has(table)) continue;
      const { rows } = await this.pool.query<{ reference: string; customer_email: string | null; customer_phone: string | null }>(
        subject.kind === 'user'
          ? `SELECT reference, customer_email, customer_phone FROM ${table} WHERE user_id = $1`
          : `SELECT reference, customer_email, customer_phone FROM ${table} WHERE lower(customer_email) = $1 OR customer_phone = $1`,
        [subject.id],
      );
      for (const r of rows) {
        transactions.add(r.reference);
        if (subject.kind === 'user') addIdentifiers(r);
      }
    }
    if (present.has(TABLES.verifierUnmatched) && identifiers.size > 0) {
      const { rows } = await this.pool.query<{ reference: string; customer_email: string | null; customer_phone: string | null }>(
        `SELECT reference, customer_email, customer_phone FROM ${TABLES.verifierUnmatched}
          WHERE lower(customer_email) = ANY($1::text[]) OR customer_phone = ANY($1::text[])`,
        [[...identifiers]],
      );
      for (const r of rows) {
        unmatched.add(r.reference);
        // The verifier seals an unmatched payment under its email's subject, else its phone's: both are this person.
        addIdentifiers(r);
      }
    }
    const subjects: ErasureSubject[] = [
      ...(subject.kind === 'user' ? [subject] : []),
      ...[...identifiers].map((id): ErasureSubject => ({ kind: 'customer', id })),
    ];
    return { transactions: [...transactions].sort(), unmatched: [...unmatched].sort(), subjects };
  }

  /** Where the subject's plaintext is, and how many rows of each place the erasure clears (counted before it does). */
  private async countPlaintext(found: Found, present: Set<string>): Promise<SubjectErasedData['erased']> {
    const places: SubjectErasedData['erased'] = [];
    const count = async (table: string, sql: string, refs: string[], how: string) => {
      if (!present.has(table)) return;
      const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE reference = ANY($1::text[]) AND (${sql})`, [refs]);
      places.push({ place: table, rows: rows[0]?.n ?? 0, how });
    };
    const plaintext = 'customer_email IS NOT NULL OR customer_phone IS NOT NULL';
    await count(TABLES.checkouts, `${plaintext} OR request_sha256 <> 'erased'`, found.transactions, 'email, phone and the request hash over them cleared');
    await count(
      TABLES.verifierTransactions,
      `${plaintext} OR customer_erased_at IS NULL`,
      found.transactions,
      'email and phone cleared; later customer checks record erased',
    );
    await count(TABLES.verifierUnmatched, plaintext, found.unmatched, 'email and phone cleared');
    places.push({ place: 'read_model.transaction_status', rows: found.transactions.length, how: 'the customer check reads erased' });
    places.push({ place: 'read_model.unmatched_payments', rows: found.unmatched.length, how: 'the sealed and masked customer values cleared' });
    return places;
  }

  private async clear(client: PoolClient, found: Found, present: Set<string>): Promise<void> {
    const refs = found.transactions;
    if (present.has(TABLES.checkouts)) {
      await client.query(
        `UPDATE ${TABLES.checkouts} SET customer_email = NULL, customer_phone = NULL, request_sha256 = 'erased'
          WHERE reference = ANY($1::text[]) AND (customer_email IS NOT NULL OR customer_phone IS NOT NULL OR request_sha256 <> 'erased')`,
        [refs],
      );
    }
    if (present.has(TABLES.verifierTransactions)) {
      await client.query(
        `UPDATE ${TABLES.verifierTransactions} SET customer_email = NULL, customer_phone = NULL, customer_erased_at = coalesce(customer_erased_at, now())
          WHERE reference = ANY($1::text[]) AND (customer_email IS NOT NULL OR customer_phone IS NOT NULL OR customer_erased_at IS NULL)`,
        [refs],
      );
    }
    if (present.has(TABLES.verifierUnmatched)) {
      await client.query(
        `UPDATE ${TABLES.verifierUnmatched} SET customer_email = NULL, customer_phone = NULL
          WHERE reference = ANY($1::text[]) AND (customer_email IS NOT NULL OR customer_phone IS NOT NULL)`,
        [found.unmatched],
      );
    }
  }
}

interface Found {
  transactions: string[];
  unmatched: string[];
  subjects: ErasureSubject[];
}

/**
 * A subject as erasure looks it up, normalised as the verifier and the console seal under it: a
 * user id as given (trimmed); a customer email lower case; a phone in E.164 (`+254 712 345 678`
 * is `+254712345678`; one that does not parse, as typed).
 *
 * @throws Error for an empty identifier.
 */
export function normaliseSubject(subject: ErasureSubject): ErasureSubject {
  const id = subject.id.trim();
  if (id.length === 0) throw new Error('a subject has a non-empty id');
  if (subject.kind === 'user') return { kind: 'user', id };
  return { kind: 'customer', id: id.includes('@') ? id.toLowerCase() : (toE164(id) ?? id) };
}
