import { createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { assertCandidateSecrets, bytesEqual, matchAnyCandidate, SignatureConfigError } from '../shared/signature-check.js';

/*
 * M-Pesa Daraja STK callbacks carry no signature (docs/provider-facts.md, M-Pesa).
 * The defence is a secret token as the last path segment of the callback URL, an optional
 * source-address allowlist, and ALWAYS a status query (`/mpesa/stkpushquery/v1/query`) before
 * anything is committed: a callback that passes this gate is still only a trigger.
 */

/**
 * Why an M-Pesa callback was refused at the gate.
 *
 * - `SOURCE_NOT_ALLOWED`: an allowlist is configured and the source address is absent, not an
 *   IP address, or not in it (checked first: it involves no secret).
 * - `MISSING_TOKEN`: the path has no non-empty segment.
 * - `MALFORMED_TOKEN`: the last segment is longer than {@link MPESA_CALLBACK_TOKEN_MAX_LENGTH}
 *   or has invalid percent-encoding; nothing was compared.
 * - `MISMATCH`: the token matches no candidate.
 */
export type MpesaCallbackGateFailureReason = 'SOURCE_NOT_ALLOWED' | 'MISSING_TOKEN' | 'MALFORMED_TOKEN' | 'MISMATCH';

/**
 * The outcome of the M-Pesa callback gate: the same shape as `SignatureCheck` (`secretIndex`
 * is the first matching candidate token, 0 = current), with gate-specific failure reasons.
 */
export type MpesaCallbackGateCheck =
  { readonly ok: true; readonly secretIndex: number } | { readonly ok: false; readonly reason: MpesaCallbackGateFailureReason };

/** Longest token segment compared, in characters (as received, before percent-decoding). */
export const MPESA_CALLBACK_TOKEN_MAX_LENGTH = 512;

/** Largest callback body parsed, in bytes; a real STK callback is well under 2 KiB. */
export const MPESA_CALLBACK_MAX_BYTES = 64 * 1024;

/**
 * A set of allowed source addresses: exact IPv4/IPv6 addresses and CIDR ranges, backed by
 * node:net `BlockList`. IPv4-mapped IPv6 sources (`::ffff:196.201.214.7`, as a dual-stack
 * socket reports IPv4 peers) match IPv4 entries. docs/provider-facts.md (M-Pesa) lists no Safaricom addresses, so
 * none are built in: the entries come from configuration.
 *
 * The address checked must be the peer as the HTTP layer resolved it (with the framework's
 * trusted-proxy settings); this class never reads `X-Forwarded-For`.
 */
export class SourceAllowlist {
  readonly #list: BlockList;

  private constructor(
    list: BlockList,
    /** The entries as configured (after trimming), for logs and diagnostics. */
    readonly entries: readonly string[],
  ) {
    this.#list = list;
  }

  /**
   * Builds an allowlist.
   *
   * @param entries - `"196.201.214.200"`, `"196.201.214.0/24"`, `"2001:db8::1"`,
   *   `"2001:db8::/32"`; surrounding spaces are trimmed. The prefix is a decimal integer,
   *   0 to 32 (IPv4) or 0 to 128 (IPv6).
   * @throws {@link SignatureConfigError} for an empty list (pass no allowlist to disable the
   *   check instead), or an entry that is not an address or a valid CIDR range (zone ids such
   *   as `fe80::1%eth0` are refused).
   */
  static from(entries: readonly string[]): SourceAllowlist {
    if (entries.length === 0) {
      throw new SignatureConfigError('M-Pesa source allowlist: no entries (leave the allowlist out to disable the check)');
    }
    const list = new BlockList();
    const trimmed = entries.map((raw) => {
      const entry = raw.trim();
      const slash = entry.indexOf('/');
      const address = slash === -1 ? entry : entry.slice(0, slash);
      const family = isIP(address);
      if (family === 0 || address.includes('%')) {
        throw new SignatureConfigError(`M-Pesa source allowlist: ${JSON.stringify(raw)} is not an IPv4/IPv6 address or CIDR range`);
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (slash === -1) {
        list.addAddress(address, type);
      } else {
        const prefixText = entry.slice(slash + 1);
        const prefix = Number(prefixText);
        if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || prefix > (family === 4 ? 32 : 128)) {
          throw new SignatureConfigError(`M-Pesa source allowlist: ${JSON.stringify(raw)} has an invalid prefix length`);
        }
        list.addSubnet(address, prefix, type);
      }
      return entry;
    });
    return new SourceAllowlist(list, trimmed);
  }

  /**
   * Whether a source address is allowed.
   *
   * @param address - the peer address (e.g. Fastify's `request.ip`); undefined, empty, not an
   *   IP address, or carrying a zone id answers false.
   */
  allows(address: string | undefined): boolean {
    if (!address || address.includes('%')) return false;
    const family = isIP(address);
    if (family === 0) return false;
    return this.#list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The callback token from a request path: its last non-empty segment (a trailing slash is
 * ignored), after removing any query string or fragment, percent-decoded.
 *
 * @param requestPath - the request target as received (e.g. Fastify's `request.url`,
 *   `/webhooks/mpesa/<token>?x=1`), not a full URL.
 * @returns the token; `MISSING_TOKEN` when the path has no non-empty segment;
 *   `MALFORMED_TOKEN` when the segment is too long or its percent-encoding is invalid.
 */
export function mpesaCallbackToken(
  requestPath: string,
): { readonly ok: true; readonly token: string } | { readonly ok: false; readonly reason: 'MISSING_TOKEN' | 'MALFORMED_TOKEN' } {
  const end = requestPath.search(/[?#]/);
  const path = end === -1 ? requestPath : requestPath.slice(0, end);
  const segment = path
    .split('/')
    .filter((s) => s.length > 0)
    .at(-1);
  if (segment === undefined) return { ok: false, reason: 'MISSING_TOKEN' };
  if (segment.length > MPESA_CALLBACK_TOKEN_MAX_LENGTH) return { ok: false, reason: 'MALFORMED_TOKEN' };
  try {
    return { ok: true, token: decodeURIComponent(segment) };
  } catch {
    return { ok: false, reason: 'MALFORMED_TOKEN' };
  }
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Compares a presented callback token with candidate tokens (current first, then previous
 * ones during a rotation), in constant time after hashing both sides with SHA-256 (equal
 * lengths, nothing learnt about the token's length). Every candidate is compared.
 *
 * @param token - the presented token, already extracted and decoded (e.g. a route parameter),
 *   or undefined.
 * @param tokens - candidate tokens.
 * @returns `{ ok: true, secretIndex }`, `MISSING_TOKEN` (undefined or empty),
 *   `MALFORMED_TOKEN` (longer than {@link MPESA_CALLBACK_TOKEN_MAX_LENGTH}) or `MISMATCH`.
 * @throws {@link SignatureConfigError} for no or empty candidate tokens.
 */
export function verifyMpesaCallbackToken(token: string | undefined, tokens: readonly string[]): MpesaCallbackGateCheck {
  assertCandidateSecrets(tokens, 'M-Pesa callback tokens');
  if (!token) return { ok: false, reason: 'MISSING_TOKEN' };
  if (token.length > MPESA_CALLBACK_TOKEN_MAX_LENGTH) return { ok: false, reason: 'MALFORMED_TOKEN' };
  const presented = sha256(token);
  const check = matchAnyCandidate(tokens, (candidate) => bytesEqual(presented, sha256(candidate)));
  return check.ok ? check : { ok: false, reason: 'MISMATCH' };
}

/** The request facts the M-Pesa gate reads. */
export interface MpesaCallbackRequest {
  /** The request target as received (path and optional query), e.g. Fastify's `request.url`. */
  readonly path: string;
  /** The peer address as the HTTP layer resolved it, e.g. Fastify's `request.ip`. */
  readonly sourceAddress: string | undefined;
}

/** Configuration of the M-Pesa gate. */
export interface MpesaCallbackGateOptions {
  /** Candidate tokens, current first, then previous ones during a rotation grace period. */
  readonly tokens: readonly string[];
  /** Allowed sources; absent or null: any source (the token alone gates). */
  readonly allowlist?: SourceAllowlist | null;
}

/**
 * The M-Pesa STK callback gate: the source address (when an allowlist is configured), then the
 * secret token in the last path segment. Passing it only means the callback may trigger a
 * status query; nothing in the body is trusted.
 *
 * @returns a {@link MpesaCallbackGateCheck}.
 * @throws {@link SignatureConfigError} for no or empty candidate tokens (checked before the request).
 */
export function verifyMpesaCallback(request: MpesaCallbackRequest, options: MpesaCallbackGateOptions): MpesaCallbackGateCheck {
  assertCandidateSecrets(options.tokens, 'M-Pesa callback tokens');
  if (options.allowlist && !options.allowlist.allows(request.sourceAddress)) return { ok: false, reason: 'SOURCE_NOT_ALLOWED' };
  const token = mpesaCallbackToken(request.path);
  if (!token.ok) return token;
  return verifyMpesaCallbackToken(token.token, options.tokens);
}

/**
 * Daraja's CheckoutRequestID: `ws_CO_` then letters, digits or underscores (e.g.
 * `ws_CO_191220191020363925`), as in Daraja's samples and the provider sandbox.
 */
export const MPESA_CHECKOUT_REQUEST_ID = /^ws_CO_[A-Za-z0-9_]{1,94}$/;

/** `ResultCode`: a number in the callback (docs/provider-facts.md, M-Pesa); a digit string is tolerated. */
const resultCodeSchema = z.union([
  z.number().int().min(0),
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,8})$/)
    .transform(Number),
]);

const stkCallbackSchema = z.object({
  Body: z.object({
    stkCallback: z.object({
      CheckoutRequestID: z.string().regex(MPESA_CHECKOUT_REQUEST_ID, 'expected a CheckoutRequestID (ws_CO_...)'),
      ResultCode: resultCodeSchema,
    }),
  }),
});

/**
 * What an STK callback is good for: which STK push to query, and the outcome the callback
 * claims. Only this is extracted; amount, phone and receipt in `CallbackMetadata` are left out
 * on purpose (the status query and the service's own STK push record are the sources of truth).
 */
export interface MpesaStkCallbackTrigger {
  /** `Body.stkCallback.CheckoutRequestID`: the STK push to query. */
  readonly checkoutRequestId: string;
  /**
   * `Body.stkCallback.ResultCode` as a number (0 success, 1032 cancelled, ...): a hint for
   * logs and scheduling only, never a settled outcome.
   */
  readonly resultCode: number;
}

/**
 * Why a callback body could not be read: `TOO_LARGE` (over {@link MPESA_CALLBACK_MAX_BYTES}),
 * `NOT_UTF8`, `NOT_JSON`, or `INVALID_SHAPE` (no well-formed `Body.stkCallback.CheckoutRequestID`
 * / `ResultCode`).
 */
export type MpesaCallbackParseError = 'TOO_LARGE' | 'NOT_UTF8' | 'NOT_JSON' | 'INVALID_SHAPE';

/** The outcome of {@link parseMpesaStkCallback}; `message` names the offending fields, never echoes the body. */
export type MpesaCallbackParse =
  { readonly ok: true; readonly value: MpesaStkCallbackTrigger } | { readonly ok: false; readonly error: MpesaCallbackParseError; readonly message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads an STK callback body (`{ Body: { stkCallback: { CheckoutRequestID, ResultCode, ... } } }`)
 * without throwing. Its content is ONLY EVER a trigger for a status query
 * (`/mpesa/stkpushquery/v1/query` with the CheckoutRequestID): callbacks are unsigned, so
 * neither the result code nor anything else in the body may settle, fail or credit a payment.
 *
 * @param rawBody - the body as received (bytes, or text already decoded).
 * @returns the trigger, or an error with a short message.
 */
export function parseMpesaStkCallback(rawBody: Buffer | string): MpesaCallbackParse {
  const size = typeof rawBody === 'string' ? Buffer.byteLength(rawBody, 'utf8') : rawBody.length;
  if (size > MPESA_CALLBACK_MAX_BYTES) {
    return { ok: false, error: 'TOO_LARGE', message: `body is ${size} bytes, over ${MPESA_CALLBACK_MAX_BYTES}` };
  }
  let text: string;
  try {
    text = typeof rawBody === 'string' ? rawBody : utf8.decode(rawBody);
  } catch {
    return { ok: false, error: 'NOT_UTF8', message: 'body is not valid UTF-8' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'NOT_JSON', message: 'body is not JSON' };
  }
  const parsed = stkCallbackSchema.safeParse(json);
  if (!parsed.success) {
    const message = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    return { ok: false, error: 'INVALID_SHAPE', message };
  }
  const { CheckoutRequestID, ResultCode } = parsed.data.Body.stkCallback;
  return { ok: true, value: { checkoutRequestId: CheckoutRequestID, resultCode: ResultCode } };
}
