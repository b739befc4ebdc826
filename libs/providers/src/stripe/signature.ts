import { createHmac } from 'node:crypto';
import {
  assertCandidateSecrets,
  bytesEqual,
  decodeDigest,
  matchAnyCandidate,
  SignatureConfigError,
  singleHeaderValue,
  type HeaderValue,
  type SignatureCheck,
} from '../shared/signature-check.js';

/** The header Stripe signs webhooks in (lower case, as Node presents header names). */
export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';

/**
 * Default tolerance between the signed timestamp and now, in milliseconds: 300 s, Stripe's
 * default (docs/provider-facts.md, Stripe).
 */
export const STRIPE_DEFAULT_TOLERANCE_MS = 300_000;

/**
 * Longest `Stripe-Signature` value parsed, in characters. A real header is about 80 characters
 * per `v1` entry; anything longer is refused as malformed before any work.
 */
export const STRIPE_SIGNATURE_MAX_LENGTH = 8192;

/** SHA-256 digest size: a `v1` entry is exactly this many bytes (64 hex characters). */
const V1_BYTES = 32;

/** A parsed `Stripe-Signature` header. */
export interface StripeSignatureHeader {
  /** `t`: when Stripe signed, in Unix seconds. */
  readonly timestampSeconds: number;
  /** Every `v1` entry, decoded from hex (32 bytes each), in header order. */
  readonly v1: readonly Buffer[];
}

/** Options of {@link verifyStripeSignature}. */
export interface StripeVerifyOptions {
  /** The current time, epoch milliseconds (injected so tests and replays are deterministic). */
  readonly nowMs: number;
  /**
   * Accepted distance between `t` and now, in MILLISECONDS, both ways; default
   * {@link STRIPE_DEFAULT_TOLERANCE_MS}. 0 demands `t * 1000 === nowMs`; unlike Stripe's
   * libraries, 0 or a negative value never disables the check (negative throws).
   */
  readonly toleranceMs?: number;
}

/**
 * Parses a `Stripe-Signature` value: `t=<unix seconds>,v1=<hex>[,v1=<hex>...][,v0=...]`.
 *
 * Strict by design: comma-separated `key=value` items with no spaces or empty items; exactly
 * one `t`, a non-negative integer without leading zeros (so the signed text `${t}` is the
 * header text itself); at least one `v1`, each exactly 64 hex characters. Other keys (`v0`,
 * Stripe's test-mode scheme, or future schemes) are ignored, as Stripe's libraries do.
 *
 * @returns the parsed header, or null when malformed.
 */
export function parseStripeSignatureHeader(header: string): StripeSignatureHeader | null {
  if (header.length > STRIPE_SIGNATURE_MAX_LENGTH) return null;
  let timestampSeconds: number | null = null;
  const v1: Buffer[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) return null;
    const key = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (key === 't') {
      if (timestampSeconds !== null || !/^(0|[1-9][0-9]{0,14})$/.test(value)) return null;
      timestampSeconds = Number(value);
    } else if (key === 'v1') {
      const digest = decodeDigest(value, 'hex', V1_BYTES);
      if (!digest) return null;
      v1.push(digest);
    }
  }
  if (timestampSeconds === null || v1.length === 0) return null;
  return { timestampSeconds, v1 };
}

/**
 * The `v1` signature: HMAC-SHA256 of `${t}.${rawBody}` (the raw bytes, never re-serialised),
 * keyed with the endpoint secret taken as a UTF-8 string, whole `whsec_` prefix included, as
 * Stripe's libraries do.
 *
 * @param rawBody - the body exactly as received (or as it will be sent).
 * @param secret - the endpoint secret (`whsec_...`).
 * @param timestampSeconds - `t`, Unix seconds.
 * @returns the 32-byte digest.
 */
export function stripeV1Digest(rawBody: Buffer | string, secret: string, timestampSeconds: number): Buffer {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`, 'utf8').update(rawBody).digest();
}

/**
 * Verifies Stripe's `Stripe-Signature` (docs/provider-facts.md, Stripe) against
 * candidate endpoint secrets.
 *
 * Accepted when ANY `v1` entry equals the HMAC under ANY candidate secret (Stripe sends one
 * `v1` per active secret while an endpoint secret is rolled), and the signed `t` is within
 * the tolerance of now, boundaries included: `nowMs - toleranceMs <= t * 1000 <= nowMs + toleranceMs`.
 * Every secret is tried against every entry (no early exit), each comparison in constant time.
 *
 * Order, as in Stripe's libraries: the signature is checked before the timestamp, so
 * `STALE_TIMESTAMP` / `FUTURE_TIMESTAMP` are only ever reported for an authentic signature (a
 * replay or a clock problem), and a forgery is always `MISMATCH`. Stripe's libraries do not
 * refuse future timestamps; this verifier does (`FUTURE_TIMESTAMP`), with the same tolerance.
 *
 * @param rawBody - the body exactly as received, before any parsing.
 * @param header - the `Stripe-Signature` value.
 * @param secrets - candidate endpoint secrets, current first, then previous ones.
 * @param options - now (epoch ms) and the tolerance (ms).
 * @returns a {@link SignatureCheck}; `MISSING_HEADER`, `MALFORMED_HEADER` (see
 *   {@link parseStripeSignatureHeader}; also for a repeated header), `MISMATCH`,
 *   `STALE_TIMESTAMP` or `FUTURE_TIMESTAMP`.
 * @throws {@link SignatureConfigError} for no or empty secrets, a non-finite `nowMs`, or a
 *   negative or non-finite `toleranceMs` (checked before the request).
 */
export function verifyStripeSignature(rawBody: Buffer, header: HeaderValue, secrets: readonly string[], options: StripeVerifyOptions): SignatureCheck {
  assertCandidateSecrets(secrets, 'Stripe endpoint secrets');
  const { nowMs, toleranceMs = STRIPE_DEFAULT_TOLERANCE_MS } = options;
  if (!Number.isFinite(nowMs)) throw new SignatureConfigError('Stripe verification: nowMs must be a finite epoch-milliseconds value');
  if (!Number.isFinite(toleranceMs) || toleranceMs < 0) {
    throw new SignatureConfigError('Stripe verification: toleranceMs must be a finite number of milliseconds >= 0');
  }

  const value = singleHeaderValue(header);
  if (!value.ok) return value;
  const parsed = parseStripeSignatureHeader(value.value);
  if (!parsed) return { ok: false, reason: 'MALFORMED_HEADER' };

  const check = matchAnyCandidate(secrets, (secret) => {
    const expected = stripeV1Digest(rawBody, secret, parsed.timestampSeconds);
    let match = false;
    for (const presented of parsed.v1) match = bytesEqual(presented, expected) || match;
    return match;
  });
  if (!check.ok) return check;

  const signedAtMs = parsed.timestampSeconds * 1000;
  if (signedAtMs < nowMs - toleranceMs) return { ok: false, reason: 'STALE_TIMESTAMP' };
  if (signedAtMs > nowMs + toleranceMs) return { ok: false, reason: 'FUTURE_TIMESTAMP' };
  return check;
}

/**
 * Builds a `Stripe-Signature` value the way Stripe does, for the sandbox and tests:
 * `t=<timestampSeconds>,v1=<hex>` with one `v1` per secret, in the order given (Stripe signs
 * with every active secret while one is rolled).
 *
 * @param body - the exact body that will be sent.
 * @param secret - an endpoint secret, or several.
 * @param timestampSeconds - `t`, Unix seconds (a non-negative integer).
 * @throws {@link SignatureConfigError} for no or empty secrets, or an invalid timestamp.
 */
export function signStripe(body: Buffer | string, secret: string | readonly string[], timestampSeconds: number): string {
  const secrets: readonly string[] = typeof secret === 'string' ? [secret] : secret;
  assertCandidateSecrets(secrets, 'Stripe endpoint secrets');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new SignatureConfigError('signStripe: timestampSeconds must be a non-negative integer (Unix seconds)');
  }
  const v1 = secrets.map((s) => `v1=${stripeV1Digest(body, s, timestampSeconds).toString('hex')}`);
  return [`t=${timestampSeconds}`, ...v1].join(',');
}
