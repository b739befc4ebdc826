import { SettleError, type ErrorKind } from '@settle/domain';

/** Stable codes of the console's application errors (docs/console.md, "API"). */
export type ConsoleErrorCode =
  | 'CONSOLE.INVALID_CREDENTIALS'
  | 'CONSOLE.TRANSACTION_NOT_FOUND'
  | 'CONSOLE.USER_EXISTS'
  | 'CONSOLE.WEAK_PASSWORD'
  | 'CONSOLE.INGESTION_UNAVAILABLE'
  | 'CONSOLE.INGESTION_REJECTED'
  | 'CONSOLE.AUDIT_UNAVAILABLE'
  | 'CONSOLE.USER_NOT_FOUND'
  | 'CONSOLE.SELF_CHANGE_REFUSED'
  | 'CONSOLE.LAST_ADMIN'
  | 'CONSOLE.ENDPOINT_NOT_FOUND'
  | 'CONSOLE.EVENT_NOT_FOUND'
  | 'CONSOLE.DELIVERY_NOT_CONFIGURED'
  | 'CONSOLE.DISPATCHER_UNAVAILABLE'
  | 'CONSOLE.DISPATCHER_REJECTED'
  | 'CONSOLE.RECONCILIATION_RUN_NOT_FOUND'
  | 'CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND'
  | 'CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN'
  | 'CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST'
  | 'CONSOLE.RECONCILIATION_INVALID_WINDOW'
  | 'CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND'
  | 'CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN'
  | 'CONSOLE.MATCH_REFUSED'
  | 'CONSOLE.PROPOSAL_PENDING'
  | 'CONSOLE.NOT_STATE_MISMATCH'
  | 'CONSOLE.MISMATCH_RESOLVED'
  | 'CONSOLE.MISMATCH_MONEY_RETURNED'
  | 'CONSOLE.MISMATCH_DISPUTE_OPEN'
  | 'CONSOLE.PRIVACY_VAULT_MISSING'
  | 'CONSOLE.SUBJECT_ERASED'
  | 'CONSOLE.SUBJECT_KEY_UNAVAILABLE';

/** Kind and problem title of each code (the HTTP edge maps the kind to a status). */
const KINDS: Record<ConsoleErrorCode, { kind: ErrorKind; title: string }> = {
  'CONSOLE.INVALID_CREDENTIALS': { kind: 'unauthenticated', title: 'Wrong email or password' },
  'CONSOLE.TRANSACTION_NOT_FOUND': { kind: 'not_found', title: 'Transaction not found' },
  'CONSOLE.USER_EXISTS': { kind: 'conflict', title: 'User exists' },
  'CONSOLE.WEAK_PASSWORD': { kind: 'invalid', title: 'Password too weak' },
  'CONSOLE.INGESTION_UNAVAILABLE': { kind: 'unavailable', title: 'Ingestion unavailable' },
  'CONSOLE.INGESTION_REJECTED': { kind: 'internal', title: 'Ingestion refused the console' },
  'CONSOLE.AUDIT_UNAVAILABLE': { kind: 'unavailable', title: 'Audit trail unavailable' },
  'CONSOLE.USER_NOT_FOUND': { kind: 'not_found', title: 'User not found' },
  'CONSOLE.SELF_CHANGE_REFUSED': { kind: 'conflict', title: 'You cannot do this to your own account' },
  'CONSOLE.LAST_ADMIN': { kind: 'conflict', title: 'The last enabled admin stays' },
  'CONSOLE.ENDPOINT_NOT_FOUND': { kind: 'not_found', title: 'Endpoint not found' },
  'CONSOLE.EVENT_NOT_FOUND': { kind: 'not_found', title: 'Entitlement event not found' },
  'CONSOLE.DELIVERY_NOT_CONFIGURED': { kind: 'unavailable', title: 'Delivery not configured' },
  'CONSOLE.DISPATCHER_UNAVAILABLE': { kind: 'unavailable', title: 'Dispatcher unavailable' },
  'CONSOLE.DISPATCHER_REJECTED': { kind: 'internal', title: 'The dispatcher refused the console' },
  'CONSOLE.RECONCILIATION_RUN_NOT_FOUND': { kind: 'not_found', title: 'Reconciliation run not found' },
  'CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND': { kind: 'not_found', title: 'Reconciliation exception not found' },
  'CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN': { kind: 'conflict', title: 'The reconciliation exception is resolved already' },
  'CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST': { kind: 'invalid', title: 'The provider has no transaction list to reconcile against' },
  'CONSOLE.RECONCILIATION_INVALID_WINDOW': { kind: 'invalid', title: 'Invalid reconciliation window' },
  'CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND': { kind: 'not_found', title: 'Unmatched payment not found' },
  'CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN': { kind: 'conflict', title: 'The unmatched payment is not open' },
  'CONSOLE.MATCH_REFUSED': { kind: 'conflict', title: 'Ingestion refused the match' },
  'CONSOLE.PROPOSAL_PENDING': { kind: 'conflict', title: 'A proposal is already pending' },
  'CONSOLE.NOT_STATE_MISMATCH': { kind: 'conflict', title: 'The transaction is not in State Mismatch' },
  'CONSOLE.MISMATCH_RESOLVED': { kind: 'conflict', title: 'The State Mismatch is resolved already' },
  'CONSOLE.MISMATCH_MONEY_RETURNED': { kind: 'conflict', title: 'Money of this payment went back to the payer' },
  'CONSOLE.MISMATCH_DISPUTE_OPEN': { kind: 'conflict', title: 'A dispute of this payment is open' },
  'CONSOLE.PRIVACY_VAULT_MISSING': { kind: 'unavailable', title: 'Privacy vault not configured' },
  'CONSOLE.SUBJECT_ERASED': { kind: 'conflict', title: 'The data subject was erased' },
  'CONSOLE.SUBJECT_KEY_UNAVAILABLE': { kind: 'internal', title: "The data subject's key is missing" },
};

/**
 * An application rule of the console refused a request. Mapped to HTTP only at the edge, by its
 * kind (`libs/http`, ProblemDetailsFilter): `CONSOLE.INVALID_CREDENTIALS` 401,
 * `CONSOLE.TRANSACTION_NOT_FOUND` 404, `CONSOLE.USER_EXISTS` 409, `CONSOLE.WEAK_PASSWORD` 400,
 * `CONSOLE.INGESTION_UNAVAILABLE` 503 (ingestion down, slow or answering 5xx: retry),
 * `CONSOLE.INGESTION_REJECTED` 500 (ingestion refused the console's admin key or request: a
 * configuration error, its detail withheld), `CONSOLE.AUDIT_UNAVAILABLE` 503 (the ledger could not
 * record an admin action's request, so the action did not run: retry), `CONSOLE.USER_NOT_FOUND` 404,
 * `CONSOLE.SELF_CHANGE_REFUSED` 409 (an admin disabling, demoting or resetting the password of
 * their own account), `CONSOLE.LAST_ADMIN` 409 (a change that would leave no enabled admin;
 * docs/console.md, "Users"); for the Deliveries pages
 * (docs/console.md, "Deliveries"): `CONSOLE.ENDPOINT_NOT_FOUND` and `CONSOLE.EVENT_NOT_FOUND` 404,
 * `CONSOLE.DELIVERY_NOT_CONFIGURED` 503 (no `CONSOLE_DISPATCHER_URL`), `CONSOLE.DISPATCHER_UNAVAILABLE`
 * 503 (the dispatcher down, slow or answering 429 or 5xx: retry), `CONSOLE.DISPATCHER_REJECTED` 500
 * (it refused the console's admin key or request, or answered something unreadable); for the
 * Reconciliation page (docs/console.md, "Reconciliation"): `CONSOLE.RECONCILIATION_RUN_NOT_FOUND`
 * and `CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND` 404, `CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN`
 * 409 (resolved already), `CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST` 400 (M-Pesa has no list)
 * and `CONSOLE.RECONCILIATION_INVALID_WINDOW` 400 (`since` not before `until`, or more than 31
 * days), both as ingestion decides them; for the
 * State Mismatch resolutions (docs/state-machine.md, "Resolving a State Mismatch"):
 * `CONSOLE.NOT_STATE_MISMATCH`, `CONSOLE.MISMATCH_RESOLVED`, `CONSOLE.MISMATCH_DISPUTE_OPEN` and `CONSOLE.MISMATCH_MONEY_RETURNED`
 * 409 (accepting a payment whose money went back); for the
 * approvals (docs/approvals.md): `CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND` 404,
 * `CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN` 409 (matched since), `CONSOLE.MATCH_REFUSED` 409 (ingestion
 * refused the checkout's terms: a registration under the reference with other terms, or terms it
 * does not accept), `CONSOLE.PROPOSAL_PENDING` 409 (the same action on the same target waits for
 * approval already); for personal data (docs/privacy.md, docs/approvals.md):
 * `CONSOLE.PRIVACY_VAULT_MISSING` 503 (the console holds no privacy vault master keys,
 * `SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE` or `_KEYS`: it cannot seal a subject, so it proposes no
 * erasure and no match with a customer), `CONSOLE.SUBJECT_ERASED` 409 (the subject a proposal
 * names was erased meanwhile: its sealed values read erased), `CONSOLE.SUBJECT_KEY_UNAVAILABLE`
 * 500 (a sealed value's key is neither stored nor erased: a restore that lost keys).
 */
export class ConsoleError extends SettleError {
  readonly kind: ErrorKind;
  /** Problem title of the code, for the HTTP answer. */
  readonly title: string;

  /**
   * @param code - stable code, see {@link ConsoleErrorCode}.
   * @param message - human-readable explanation, answered as the problem's detail; never a secret.
   */
  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleError';
    this.kind = KINDS[code].kind;
    this.title = KINDS[code].title;
  }
}
