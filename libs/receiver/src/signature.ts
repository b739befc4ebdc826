import { Webhook } from 'standardwebhooks';
import { ReceiverConfigError } from './errors.js';

/**
 * Request headers as frameworks hand them over: Node's `IncomingHttpHeaders` (lower-case names,
 * a value, an array when repeated, or undefined), any plain record, or a Fetch API `Headers`.
 */
export type HeadersLike = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The outcome of {@link SignatureVerifier.verify}; `detail` is safe to answer and log. */
export type SignatureCheck = { readonly ok: true; readonly webhookId: string } | { readonly ok: false; readonly detail: string };

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;
const MIN_KEY_BYTES = 24;
const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

// standardwebhooks' messages, mapped to details that say what to fix (they never hold secrets).
const details: Record<string, string> = {
  'Missing required headers': 'a webhook-id, webhook-timestamp or webhook-signature header is missing',
  'Invalid Signature Headers': 'webhook-timestamp is not a number of seconds',
  'Message timestamp too old': 'webhook-timestamp is more than 5 minutes old (replay protection)',
  'Message timestamp too new': 'webhook-timestamp is more than 5 minutes in the future',
  'No matching signature found': 'no v1 signature in webhook-signature matches a configured secret',
};

function header(headers: HeadersLike, name: string): string | undefined | null {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  if (value === undefined || typeof value === 'string') return value;
  // A repeated header is refused, never resolved by picking one of its values.
  return value.length === 1 ? value[0] : null;
}

/**
 * Checks Standard Webhooks signatures with the `standardwebhooks` package (receiver rule 1;
 * docs/spec.md, section 6, rule 3: verify before reading the payload). The signed content is
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, HMAC-SHA256 keyed with the base64-decoded part
 * of a `whsec_` secret; the package compares in constant time, accepts any of several
 * space-separated `v1,<base64>` signatures (Settle rotating the endpoint secret) and refuses a
 * timestamp more than 5 minutes away from now (replays).
 *
 * Several secrets may be configured (a rotation on the customer's side): each is tried in turn.
 * The secrets live only inside private `Webhook` instances; nothing here prints them.
 */
export class SignatureVerifier {
  readonly #webhooks: readonly Webhook[];

  /**
   * @param secrets - `whsec_` + base64 of at least 24 bytes (Settle uses 32); current first.
   * @throws {@link ReceiverConfigError} when the list is empty or an entry is not such a secret.
   */
  constructor(secrets: readonly string[]) {
    if (!Array.isArray(secrets) || secrets.length === 0) {
      throw new ReceiverConfigError('secrets: at least one whsec_ secret is required');
    }
    this.#webhooks = secrets.map((secret: unknown, i) => {
      const match = typeof secret === 'string' ? SECRET.exec(secret) : null;
      if (!match?.[1] || Buffer.from(match[1], 'base64').length < MIN_KEY_BYTES) {
        throw new ReceiverConfigError(`secrets[${i}] is not a whsec_ secret (whsec_ + base64 of at least ${MIN_KEY_BYTES} bytes)`);
      }
      return new Webhook(secret as string);
    });
  }

  /**
   * Verifies a delivery's signature on its raw bytes. Does not parse the body.
   *
   * @param rawBody - the request body exactly as received.
   * @param headers - the request headers; `webhook-id`, `webhook-timestamp` and
   *   `webhook-signature` are read, each must appear once.
   * @returns `ok` with the authenticated `webhook-id`, or why the delivery is refused (401).
   */
  verify(rawBody: Buffer | string, headers: HeadersLike): SignatureCheck {
    const values: Record<string, string> = {};
    for (const name of HEADERS) {
      const value = header(headers, name);
      if (value === null) return { ok: false, detail: `the ${name} header is repeated` };
      if (!value) return { ok: false, detail: details['Missing required headers']! };
      values[name] = value;
    }
    let detail = details['No matching signature found']!;
    for (const webhook of this.#webhooks) {
      try {
        webhook.verify(rawBody, values, { jsonParse: false });
        return { ok: true, webhookId: values['webhook-id']! };
      } catch (error) {
        detail = details[(error as Error).message] ?? detail;
      }
    }
    return { ok: false, detail };
  }
}
