import { createHash, createHmac } from 'node:crypto';
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

/** Legacy Flutterwave header: the dashboard secret hash itself, sent in clear. */
export const FLUTTERWAVE_VERIF_HASH_HEADER = 'verif-hash';

/** Newer Flutterwave header: an HMAC of the raw body (see {@link FLUTTERWAVE_HMAC_SCHEME}). */
export const FLUTTERWAVE_SIGNATURE_HEADER = 'flutterwave-signature';

/**
 * Longest `verif-hash` value compared, in characters. The secret hash is chosen by the
 * merchant in the dashboard; a longer header is refused as malformed without hashing it.
 */
export const FLUTTERWAVE_VERIF_HASH_MAX_LENGTH = 1024;

/**
 * The `flutterwave-signature` algorithm, in ONE place because docs/provider-facts.md marks it
 * "(unconfirmed detail)": base64 (standard alphabet, padded) of HMAC-SHA256 over the raw
 * body, keyed with the secret hash as a UTF-8 string. If Flutterwave's documentation turns
 * out to differ (another digest, hex, another key), correct this constant and, if the signed
 * text changes, {@link flutterwaveHmac}; the verifier, signer and tests follow.
 */
export const FLUTTERWAVE_HMAC_SCHEME = {
  /** node:crypto digest name. */
  algorithm: 'sha256',
  /** How the digest is written in the header. */
  encoding: 'base64',
  /** Digest size in bytes (SHA-256: 32), used to refuse wrong-length headers without comparing. */
  digestBytes: 32,
} as const;

/**
 * How an account's Flutterwave webhooks are authenticated, chosen per account configuration:
 * `verif-hash` (legacy: header equals the secret hash) or `hmac` (`flutterwave-signature`).
 * Only the configured scheme's header is read; there is no fallback from one to the other.
 */
export type FlutterwaveSignatureMode = 'verif-hash' | 'hmac';

/**
 * The headers the Flutterwave verifier reads (by lower-case name; others are ignored). Node's
 * `IncomingHttpHeaders` fits this shape and can be passed as is.
 */
export interface FlutterwaveWebhookHeaders {
  readonly [name: string]: HeaderValue;
  readonly 'verif-hash'?: HeaderValue;
  readonly 'flutterwave-signature'?: HeaderValue;
}

/** Options of {@link verifyFlutterwaveWebhook}. */
export interface FlutterwaveVerifyOptions {
  /** The account's configured scheme. */
  readonly mode: FlutterwaveSignatureMode;
}

/**
 * The `flutterwave-signature` digest of a body under {@link FLUTTERWAVE_HMAC_SCHEME}
 * (the single definition of the signed text: the raw body, nothing else).
 *
 * @param rawBody - the body exactly as received.
 * @param secretHash - the dashboard secret hash.
 * @returns the raw digest bytes.
 */
export function flutterwaveHmac(rawBody: Buffer | string, secretHash: string): Buffer {
  return createHmac(FLUTTERWAVE_HMAC_SCHEME.algorithm, secretHash).update(rawBody).digest();
}

/**
 * Builds a `flutterwave-signature` value for the sandbox and tests.
 *
 * @param rawBody - the exact body that will be sent.
 * @param secretHash - the dashboard secret hash.
 */
export function signFlutterwave(rawBody: Buffer | string, secretHash: string): string {
  return flutterwaveHmac(rawBody, secretHash).toString(FLUTTERWAVE_HMAC_SCHEME.encoding);
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Verifies the legacy `verif-hash` header: it must equal one of the candidate secret hashes
 * (docs/provider-facts.md, Flutterwave). Both sides are hashed with SHA-256 first so the
 * constant-time comparison runs on equal lengths and leaks neither the secret's length nor a
 * common prefix. The scheme does not cover the body: a captured header authenticates any
 * body, so a webhook is only ever a trigger for verifying the transaction with Flutterwave.
 *
 * @param header - the `verif-hash` value.
 * @param secretHashes - candidate secret hashes, current first.
 * @returns a {@link SignatureCheck}: `MISSING_HEADER`, `MALFORMED_HEADER` (repeated, or longer
 *   than {@link FLUTTERWAVE_VERIF_HASH_MAX_LENGTH}), or `MISMATCH`.
 * @throws {@link SignatureConfigError} for no or empty secret hashes.
 */
export function verifyFlutterwaveVerifHash(header: HeaderValue, secretHashes: readonly string[]): SignatureCheck {
  assertCandidateSecrets(secretHashes, 'Flutterwave secret hashes');
  const value = singleHeaderValue(header);
  if (!value.ok) return value;
  if (value.value.length > FLUTTERWAVE_VERIF_HASH_MAX_LENGTH) return { ok: false, reason: 'MALFORMED_HEADER' };
  const presented = sha256(value.value);
  return matchAnyCandidate(secretHashes, (secretHash) => bytesEqual(presented, sha256(secretHash)));
}

/**
 * Verifies the newer `flutterwave-signature` header: {@link FLUTTERWAVE_HMAC_SCHEME} over the
 * exact raw body, under any candidate secret hash. A header that is not canonical base64 of
 * exactly `digestBytes` bytes fails as `MALFORMED_HEADER` without comparing.
 *
 * @param rawBody - the body exactly as received, before any parsing.
 * @param header - the `flutterwave-signature` value.
 * @param secretHashes - candidate secret hashes, current first.
 * @throws {@link SignatureConfigError} for no or empty secret hashes.
 */
export function verifyFlutterwaveHmac(rawBody: Buffer, header: HeaderValue, secretHashes: readonly string[]): SignatureCheck {
  assertCandidateSecrets(secretHashes, 'Flutterwave secret hashes');
  const value = singleHeaderValue(header);
  if (!value.ok) return value;
  const presented = decodeDigest(value.value, FLUTTERWAVE_HMAC_SCHEME.encoding, FLUTTERWAVE_HMAC_SCHEME.digestBytes);
  if (!presented) return { ok: false, reason: 'MALFORMED_HEADER' };
  return matchAnyCandidate(secretHashes, (secretHash) => bytesEqual(presented, flutterwaveHmac(rawBody, secretHash)));
}

/**
 * Verifies a Flutterwave webhook with the account's configured scheme
 * (`{ mode: 'verif-hash' }` → {@link verifyFlutterwaveVerifHash}, `{ mode: 'hmac' }` →
 * {@link verifyFlutterwaveHmac}). The other scheme's header is ignored, present or not.
 *
 * @param rawBody - the body exactly as received.
 * @param headers - the request headers (lower-case names).
 * @param secretHashes - candidate secret hashes, current first.
 * @param options - the configured mode.
 * @throws {@link SignatureConfigError} for no or empty secret hashes, or an unknown mode.
 */
export function verifyFlutterwaveWebhook(
  rawBody: Buffer,
  headers: FlutterwaveWebhookHeaders,
  secretHashes: readonly string[],
  options: FlutterwaveVerifyOptions,
): SignatureCheck {
  switch (options.mode) {
    case 'verif-hash':
      return verifyFlutterwaveVerifHash(headers[FLUTTERWAVE_VERIF_HASH_HEADER], secretHashes);
    case 'hmac':
      return verifyFlutterwaveHmac(rawBody, headers[FLUTTERWAVE_SIGNATURE_HEADER], secretHashes);
    default:
      throw new SignatureConfigError(`Flutterwave verification: unknown mode ${JSON.stringify(options.mode satisfies never)}`);
  }
}
