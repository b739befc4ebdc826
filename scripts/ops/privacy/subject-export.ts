import type { SubjectData } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { isSealedValue } from '@settle/vault';

/**
 * A data subject's data as Settle holds it (docs/privacy.md, "Export"; GDPR article 15, the right
 * of access): every row that names the subject, from every schema that keeps personal data, and
 * the ledger events of the subject's payments and entitlements. Rows are given whole, as stored
 * (each table's columns, as JSON): what is held, not a summary of it.
 */
export interface SubjectExport {
  subject: { kind: 'user' | 'customer'; id: string };
  exported_at: string;
  /** `ingestion.checkouts`: the registrations (the customer's email and phone as the merchant sent them). */
  checkouts: unknown[];
  /** `verifier.transactions`: what the verifier compared with the providers' answers. */
  verifier_transactions: unknown[];
  /** Payments Settle was never told about, whose provider reported this customer (`read_model.unmatched_payments`). */
  unmatched_payments: unknown[];
  /** `read_model.transaction_status`: each payment's state and its four checks. */
  transaction_status: unknown[];
  /** `read_model.entitlements`: the access the subject's payments bought. */
  entitlements: unknown[];
  /** The ledger's events of those payments' and entitlements' streams, in order. */
  ledger_events: Array<{ position: number; stream_id: string; revision: number; event_type: string; recorded_at: string; data: unknown }>;
  /** `dispatcher.events`: the entitlement events delivered to the merchant's endpoints about the subject. */
  deliveries: unknown[];
  /** `console.proposals`: the operators' proposals to match the subject's unmatched payments (their customer sealed). */
  proposals: unknown[];
}

/**
 * Reads a subject's data: the rows of everything `found` names (what `SubjectErasure.find` found:
 * a user's registrations, or a customer's by email or phone in any stored form, their unmatched
 * payments, and the other identifiers those rows hold), from every schema that keeps personal
 * data, with the ledger events of the payments' and entitlements' streams.
 *
 * @throws database errors (a schema missing: the app that owns it never ran against this database).
 */
export async function exportSubject(pool: Pool, subject: SubjectExport['subject'], found: SubjectData, now = new Date()): Promise<SubjectExport> {
  const rows = async (sql: string, params: unknown[]) => (await pool.query<{ row: unknown }>(sql, params)).rows.map((r) => r.row);
  const references = found.transactions;
  const checkouts = await rows('SELECT to_jsonb(c) AS row FROM ingestion.checkouts c WHERE reference = ANY($1::text[]) ORDER BY registered_at, reference', [
    references,
  ]);
  const users = [...new Set([...(subject.kind === 'user' ? [subject.id] : []), ...checkouts.map((c) => (c as { user_id: string }).user_id)])];
  const unmatchedReferences = found.unmatched;
  const unmatched = await rows('SELECT to_jsonb(u) AS row FROM read_model.unmatched_payments u WHERE reference = ANY($1::text[]) ORDER BY reference', [
    unmatchedReferences,
  ]);
  const streams = [...references.map((r) => `transaction-${r}`), ...unmatchedReferences.map((r) => `unmatched-${r}`)];
  const entitlementPrefixes = users.map((u) => `entitlement-${encodeURIComponent(u)}:`);
  const events = await pool.query<{ position: string; stream_id: string; revision: string; event_type: string; recorded_at: Date; data: unknown }>(
    `SELECT position, stream_id, revision, event_type, recorded_at, data FROM ledger.events
      WHERE stream_id = ANY($1::text[]) OR EXISTS (SELECT 1 FROM unnest($2::text[]) p WHERE starts_with(stream_id, p))
      ORDER BY position`,
    [streams, entitlementPrefixes],
  );
  const hasProposals = (await pool.query<{ t: string | null }>("SELECT to_regclass('console.proposals')::text AS t")).rows[0]?.t !== null;
  return {
    subject,
    exported_at: now.toISOString(),
    checkouts,
    verifier_transactions: await rows('SELECT to_jsonb(t) AS row FROM verifier.transactions t WHERE reference = ANY($1::text[]) ORDER BY reference', [
      references,
    ]),
    unmatched_payments: unmatched,
    transaction_status: await rows('SELECT to_jsonb(s) AS row FROM read_model.transaction_status s WHERE reference = ANY($1::text[]) ORDER BY reference', [
      references,
    ]),
    entitlements: await rows('SELECT to_jsonb(e) AS row FROM read_model.entitlements e WHERE user_id = ANY($1::text[]) ORDER BY user_id, entitlement', [users]),
    ledger_events: events.rows.map((e) => ({
      position: Number(e.position),
      stream_id: e.stream_id,
      revision: Number(e.revision),
      event_type: e.event_type,
      recorded_at: e.recorded_at.toISOString(),
      data: e.data,
    })),
    deliveries: await rows('SELECT to_jsonb(d) AS row FROM dispatcher.events d WHERE user_id = ANY($1::text[]) ORDER BY received_at, event_id', [users]),
    proposals: hasProposals
      ? await rows(
          `SELECT to_jsonb(p) AS row FROM console.proposals p
            WHERE (target_kind = 'unmatched_payment' AND target_id = ANY($1::text[])) OR parameters->>'user_id' = ANY($2::text[])
            ORDER BY proposed_at`,
          [unmatchedReferences, users],
        )
      : [],
  };
}

/** What opening a sealed value gave, in an export (docs/privacy.md, "Export"). */
export type RevealedValue =
  | { sealed: true; status: 'open'; value: string }
  | { sealed: true; status: 'erased'; erased_at: string }
  | { sealed: true; status: 'unavailable' | 'unreadable' };

/** What revealing needs of the privacy vault: structurally `SubjectKeys.reveal` of `@settle/vault`. */
export interface SealedValueOpener {
  reveal(field: string, sealed: string): Promise<{ status: 'open'; value: string } | { status: 'erased'; erasedAt: Date } | { status: 'unavailable' }>;
}

/**
 * The export with every sealed value (`sealed:v1:...`, wherever it sits) replaced by what it
 * opens to: the value, `erased` (the subject was erased: its key is destroyed), `unavailable`
 * (its key is missing: docs/privacy.md, "When a key is missing") or `unreadable` (altered, or not
 * sealed for the field it sits in). A value is opened for the field it is found under
 * (`customer_email`), as it was sealed.
 */
export async function revealSealedValues<T>(value: T, keys: SealedValueOpener): Promise<T> {
  const walk = async (node: unknown, field: string): Promise<unknown> => {
    if (typeof node === 'string' && isSealedValue(node)) return open(field, node);
    if (Array.isArray(node)) return Promise.all(node.map((item) => walk(item, field)));
    if (node !== null && typeof node === 'object') {
      const entries = await Promise.all(Object.entries(node).map(async ([k, v]) => [k, await walk(v, k)] as const));
      return Object.fromEntries(entries);
    }
    return node;
  };
  const open = async (field: string, sealed: string): Promise<RevealedValue> => {
    try {
      const opened = await keys.reveal(field, sealed);
      if (opened.status === 'open') return { sealed: true, status: 'open', value: opened.value };
      if (opened.status === 'erased') return { sealed: true, status: 'erased', erased_at: opened.erasedAt.toISOString() };
      return { sealed: true, status: 'unavailable' };
    } catch {
      return { sealed: true, status: 'unreadable' };
    }
  };
  return (await walk(value, '')) as T;
}
