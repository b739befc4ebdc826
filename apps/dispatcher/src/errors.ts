import { SettleError, type ErrorKind } from '@settle/domain';

/** Stable codes of the dispatcher's application errors. */
export type DispatcherErrorCode = 'ENDPOINT.NOT_FOUND' | 'ENDPOINT.URL_NOT_ALLOWED' | 'EVENT.NOT_FOUND' | 'RECEIPT.UNKNOWN_EVENT' | 'RECEIPT.NOT_COVERED_YET';

/** Kind and problem title of each code (the HTTP edge maps the kind to a status). */
const KINDS: Record<DispatcherErrorCode, { kind: ErrorKind; title: string }> = {
  'ENDPOINT.NOT_FOUND': { kind: 'not_found', title: 'Endpoint not found' },
  'ENDPOINT.URL_NOT_ALLOWED': { kind: 'invalid', title: 'Endpoint URL not allowed' },
  'EVENT.NOT_FOUND': { kind: 'not_found', title: 'Entitlement event not found' },
  'RECEIPT.UNKNOWN_EVENT': { kind: 'not_found', title: 'No delivered event has this id' },
  'RECEIPT.NOT_COVERED_YET': { kind: 'not_found', title: 'No signed checkpoint covers the event yet' },
};

/**
 * An application rule of the dispatcher refused a request. Mapped to HTTP only at the edge,
 * by its kind (`libs/http`, ProblemDetailsFilter): `ENDPOINT.NOT_FOUND`, `EVENT.NOT_FOUND`,
 * `RECEIPT.UNKNOWN_EVENT` and `RECEIPT.NOT_COVERED_YET` 404, `ENDPOINT.URL_NOT_ALLOWED` 400
 * (docs/delivery.md, "Endpoints and their secrets"; docs/ledger.md, "Receipts").
 */
export class DispatcherError extends SettleError {
  readonly kind: ErrorKind;
  /** Problem title of the code, for the HTTP answer. */
  readonly title: string;

  /**
   * @param code - stable code, see {@link DispatcherErrorCode}.
   * @param message - human-readable explanation, answered as the problem's detail; never a secret.
   */
  constructor(
    readonly code: DispatcherErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DispatcherError';
    this.kind = KINDS[code].kind;
    this.title = KINDS[code].title;
  }
}
