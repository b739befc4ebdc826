import { randomUUID } from 'node:crypto';
import { customerIdentifier, DomainError, phoneDigitForms } from '@settle/domain';
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
 * What erasure needs of the privacy vault: structurally `SubjectKeys` of `@settle/vault`
 * (docs/privacy.md, "Crypto-shredding"): a subject's key id, looked up without making one, and
 * keys destroyed by id in the erasure's own transaction.
 */
export interface SubjectKeyEraser {
  /** The subject's key id, or `null` when it has none. */
  keyIdOf(subject: ErasureSubject): Promise<string | null>;
  /** Destroys keys by id in `tx`; ids already erased or unknown are skipped. */
  eraseKeys(keyIds: readonly string[], tx?: PoolClient): Promise<Array<{ keyId: string }>>;
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
    why: 'until they age out; a restore must be followed by ./settle privacy reapply-erasures, which re-applies every erasure the ledger’s privacy-erasures stream records',
  },
];

/** The tables erasure clears, when the database has them (an app that never ran against it has no schema). */
const TABLES = {
  checkouts: 'ingestion.checkouts',
  verifierTransactions: 'verifier.transactions',
  verifierUnmatched: 'verifier.unmatched_payments',
} as const;

/** Rounds of following identifiers from registrations to unmatched payments and back (each round finds more or ends the search). */
const MAX_ROUNDS = 8;

/** What names a subject, found by {@link SubjectErasure.find}: payments and unmatched payments by reference, and the subjects whose keys go. */
export interface SubjectData {
  transactions: string[];
  unmatched: string[];
  /** The user (for a user) and every customer identifier found, normalised ({@link customerIdentifier}). */
  subjects: ErasureSubject[];
}

/**
 * Erases a data subject (docs/privacy.md, "Erasure"; GDPR article 17) without breaking the
 * ledger's chains:
 *
 * 1. finds everything that names the subject ({@link find}): the registrations of a user, or of
 *    a customer by email (any case) or phone (in any form a provider stored it), the unmatched
 *    payments whose provider reported one of those identifiers, and, from each row found, the
 *    other identifier it holds (the same person's), until nothing new turns up;
 * 2. looks up the keys of those subjects in the privacy vault (making none);
 * 3. records the erasure as a `SubjectErased` fact in the ledger's `privacy-erasures` stream:
 *    references, key ids and counts, no subject. A reason that names the subject is refused
 *    before anything is written (`PRIVACY.REASON_NAMES_SUBJECT`);
 * 4. in one transaction: clears the customer's email and phone where Settle keeps them in
 *    plaintext for its work (the registrations and their `request_sha256`, the verifier's copies,
 *    marked erased, and the verifier's unmatched payments), marks the read models as the fact's
 *    projection does (the customer check reads `erased`), and destroys the keys, so every value
 *    sealed under them (ledger, Kafka, read models, proposals) reads `erased` from then on.
 *
 * A failure before step 4 commits changes nothing but the recorded fact: running the erasure
 * again finds the same rows and completes it. Running it after it completed clears nothing more.
 *
 * @throws DomainError `PRIVACY.REASON_NAMES_SUBJECT` (invalid) for a reason that contains one of
 *   the subject's identifiers; the ledger's and the database's errors.
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
    const found = await this.findIn(target, present);
    assertReasonNamesNoOne(request.reason, [target, ...found.subjects]);
    const keyIds = [...new Set((await Promise.all(found.subjects.map((s) => this.keys.keyIdOf(s)))).filter((id): id is string => id !== null))].sort();
    const data: SubjectErasedData = {
      erasure_id: randomUUID(),
      subject_kind: target.kind,
      transaction_references: found.transactions,
      unmatched_references: found.unmatched,
      destroyed_key_ids: keyIds,
      erased: [
        { place: 'privacy_keys.subject_keys', rows: keyIds.length, how: 'data keys destroyed: sealed values read erased' },
        ...(await this.countPlaintext(found, present)),
      ],
      remaining: [...REMAINS_AFTER_ERASURE],
      requested_by: request.requestedBy,
      approved_by: request.approvedBy,
      reason: request.reason,
      erased_at: this.now().toISOString(),
    };
    // Recorded before anything changes: a failure after this leaves the fact, and running again finds the same rows.
    const appended = await this.ledger.append(PRIVACY_ERASURE_STREAM, [subjectErasedEvent(data)], 'any');
    await this.apply(data, present);
    return { ...data, ledger_position: appended.positions[0] ?? 0 };
  }

  /**
   * Applies recorded erasures again (after a database restore brought back rows and keys they
   * had erased; docs/privacy.md, "What remains after an erasure"): for each fact, in one
   * transaction, clears the plaintext of its references, marks the read models and destroys its
   * keys by id. Records nothing new.
   *
   * @returns how many keys were destroyed again and how many facts were applied.
   */
  async reapply(facts: readonly SubjectErasedData[]): Promise<{ facts: number; keysDestroyed: number }> {
    const present = await this.presentTables();
    let keysDestroyed = 0;
    for (const fact of facts) keysDestroyed += await this.apply(fact, present);
    return { facts: facts.length, keysDestroyed };
  }

  /**
   * Everything that names a subject (step 1 of {@link erase}), also what `./settle privacy export`
   * reads. Phones are matched in every form a provider may have stored (`phoneDigitForms`), so the
   * registrations' tables are scanned: an erasure is rare.
   */
  async find(subject: ErasureSubject): Promise<SubjectData> {
    return this.findIn(normaliseSubject(subject), await this.presentTables());
  }

  /** Step 4 of {@link erase} for one fact, in one transaction; the keys destroyed now. */
  private async apply(fact: SubjectErasedData, present: Set<string>): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      await this.clear(client, { transactions: fact.transaction_references, unmatched: fact.unmatched_references }, present);
      // The projector projects what it appends; this fact is appended here, so its read-model marks are written here (a rebuild replays them).
      await applyErasures(client, [{ transactionReferences: fact.transaction_references, unmatchedReferences: fact.unmatched_references }]);
      return (await this.keys.eraseKeys(fact.destroyed_key_ids, client)).length;
    });
  }

  private async presentTables(): Promise<Set<string>> {
    const names = Object.values(TABLES);
    const { rows } = await this.pool.query<{ name: string }>('SELECT n AS name FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NOT NULL', [names]);
    return new Set(rows.map((r) => r.name));
  }

  private async findIn(subject: ErasureSubject, present: Set<string>): Promise<SubjectData> {
    const users = subject.kind === 'user' ? [subject.id] : [];
    const identifiers = new Set<string>(subject.kind === 'customer' ? [subject.id] : []);
    const transactions = new Set<string>();
    const unmatched = new Set<string>();
    type Row = { reference: string; customer_email: string | null; customer_phone: string | null };
    const take = (rows: Row[], into: Set<string>) => {
      for (const r of rows) {
        into.add(r.reference);
        for (const value of [r.customer_email, r.customer_phone]) if (value?.trim()) identifiers.add(customerIdentifier(value));
      }
    };
    const phoneDigits = "regexp_replace(coalesce(customer_phone, ''), '[^0-9]', '', 'g')";
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const size = identifiers.size + transactions.size + unmatched.size;
      const emails = [...identifiers].filter((i) => i.includes('@'));
      const phones = [...identifiers].filter((i) => !i.includes('@')).flatMap(phoneDigitForms);
      for (const table of [TABLES.checkouts, TABLES.verifierTransactions]) {
        if (!present.has(table)) continue;
        const { rows } = await this.pool.query<Row>(
          `SELECT reference, customer_email, customer_phone FROM ${table}
            WHERE user_id = ANY($1::text[]) OR lower(btrim(customer_email)) = ANY($2::text[]) OR ${phoneDigits} = ANY($3::text[])`,
          [users, emails, phones],
        );
        take(rows, transactions);
      }
      if (present.has(TABLES.verifierUnmatched)) {
        const { rows } = await this.pool.query<Row>(
          `SELECT reference, customer_email, customer_phone FROM ${TABLES.verifierUnmatched}
            WHERE lower(btrim(customer_email)) = ANY($1::text[]) OR ${phoneDigits} = ANY($2::text[])`,
          [emails, phones],
        );
        take(rows, unmatched);
      }
      if (identifiers.size + transactions.size + unmatched.size === size) break;
    }
    const subjects: ErasureSubject[] = [
      ...users.map((id): ErasureSubject => ({ kind: 'user', id })),
      ...[...identifiers].sort().map((id): ErasureSubject => ({ kind: 'customer', id })),
    ];
    return { transactions: [...transactions].sort(), unmatched: [...unmatched].sort(), subjects };
  }

  /** Where the subject's plaintext is, and how many rows of each place the erasure clears (counted before it does). */
  private async countPlaintext(found: SubjectData, present: Set<string>): Promise<SubjectErasedData['erased']> {
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

  private async clear(client: PoolClient, found: Pick<SubjectData, 'transactions' | 'unmatched'>, present: Set<string>): Promise<void> {
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

/**
 * A subject as erasure looks it up, named as the verifier and the console seal under it
 * ({@link customerIdentifier}): a user id trimmed; a customer email lower case, a phone in E.164.
 *
 * @throws DomainError `PRIVACY.SUBJECT_REQUIRED` for an empty identifier.
 */
export function normaliseSubject(subject: ErasureSubject): ErasureSubject {
  const id = subject.id.trim();
  if (id.length === 0) throw new DomainError('PRIVACY.SUBJECT_REQUIRED', 'a subject has a non-empty id');
  return subject.kind === 'user' ? { kind: 'user', id } : { kind: 'customer', id: customerIdentifier(id) };
}

/**
 * Refuses a reason that names one of the subjects (it goes into the immutable ledger): an email
 * anywhere in it (any case), a user id as a word of it, a phone as a run of digits in any of its
 * forms (`+254 712 345 678`, `0712345678`).
 *
 * @throws DomainError `PRIVACY.REASON_NAMES_SUBJECT` (invalid).
 */
export function assertReasonNamesNoOne(reason: string, subjects: readonly ErasureSubject[]): void {
  const text = reason.toLowerCase();
  const words = new Set(text.split(/[\s,;:()[\]"'`]+/).filter((w) => w.length > 0));
  const phoneRuns = (reason.match(/\+?\d[\d\s().-]{4,}\d/g) ?? []).map((run) => run.replace(/[^0-9]/g, ''));
  const names = (s: ErasureSubject): boolean => {
    if (s.kind === 'user') return words.has(s.id.toLowerCase());
    if (s.id.includes('@')) return text.includes(s.id.toLowerCase());
    return phoneRuns.some((run) => phoneDigitForms(s.id).some((form) => form.length >= 6 && run.includes(form)));
  };
  if (subjects.some(names)) {
    throw new DomainError(
      'PRIVACY.REASON_NAMES_SUBJECT',
      'the reason names the person: it is recorded in the ledger for good; give a ticket or a date instead',
    );
  }
}
