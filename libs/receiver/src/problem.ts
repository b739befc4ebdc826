/**
 * Stable codes of the problems the kit answers over HTTP.
 *
 * - `RECEIVER.SIGNATURE_INVALID` (401): a `webhook-*` header is missing or repeated, no
 *   `v1` signature matches any configured secret (forged, tampered body, wrong secret), or the
 *   signed timestamp lies outside the 5-minute tolerance (a replay). Nothing was recorded.
 * - `RECEIVER.PAYLOAD_INVALID` (400): authentic, but not a JSON event of the contract's shape,
 *   or its `event_id` differs from the `webhook-id` header. Nothing was recorded.
 * - `RECEIVER.PAYLOAD_TOO_LARGE` (413): the body exceeds the adapter's size limit.
 * - `RECEIVER.METHOD_NOT_ALLOWED` (405): the node handler was called with a method other than POST.
 * - `RECEIVER.RAW_BODY_UNAVAILABLE` (500): a deployment error; a body parser consumed the request
 *   before the kit could read the raw bytes (see the README for each framework).
 * - `RECEIVER.STORE_UNAVAILABLE` (503): the event could not be recorded durably in time; Settle
 *   retries the delivery.
 */
export type ReceiverProblemCode =
  | 'RECEIVER.SIGNATURE_INVALID'
  | 'RECEIVER.PAYLOAD_INVALID'
  | 'RECEIVER.PAYLOAD_TOO_LARGE'
  | 'RECEIVER.METHOD_NOT_ALLOWED'
  | 'RECEIVER.RAW_BODY_UNAVAILABLE'
  | 'RECEIVER.STORE_UNAVAILABLE';

/**
 * RFC 9457 problem details, the body of every error the kit answers
 * (`Content-Type: application/problem+json`). Never contains a secret or a signature.
 */
export interface ProblemDetails {
  /** URI reference identifying the problem type: `urn:settle:problem:<code, lower case>`. */
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  /** Stable machine-readable code, see {@link ReceiverProblemCode}. */
  readonly code: ReceiverProblemCode;
  /** Field-level problems of an invalid payload. */
  readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
}

/** Media type of RFC 9457 problem details. */
export const PROBLEM_JSON = 'application/problem+json';

const titles: Record<ReceiverProblemCode, readonly [status: number, title: string]> = {
  'RECEIVER.SIGNATURE_INVALID': [401, 'Webhook signature invalid'],
  'RECEIVER.PAYLOAD_INVALID': [400, 'Webhook payload invalid'],
  'RECEIVER.PAYLOAD_TOO_LARGE': [413, 'Webhook payload too large'],
  'RECEIVER.METHOD_NOT_ALLOWED': [405, 'Method not allowed'],
  'RECEIVER.RAW_BODY_UNAVAILABLE': [500, 'Raw request body unavailable'],
  'RECEIVER.STORE_UNAVAILABLE': [503, 'Event store unavailable'],
};

/**
 * Builds the problem details of a code.
 *
 * @param code - the stable code; it fixes `status` and `title`.
 * @param detail - human-readable explanation; must not contain secrets.
 * @param errors - field-level problems, for `RECEIVER.PAYLOAD_INVALID`.
 */
export function problem(code: ReceiverProblemCode, detail?: string, errors?: ReadonlyArray<{ path: string; message: string }>): ProblemDetails {
  const [status, title] = titles[code];
  return {
    type: `urn:settle:problem:${code.toLowerCase()}`,
    title,
    status,
    code,
    ...(detail ? { detail } : {}),
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}
