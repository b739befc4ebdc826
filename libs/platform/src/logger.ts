import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** What a redacted value is written as. */
export const REDACTED = '[redacted]';

/**
 * Endings of the field names whose values never reach a log line, compared without case and
 * without `-` and `_` (so `secretKey`, `secret_key`, `SECRET_KEY` and `secret-key` are one name),
 * and without a trailing `previous` or `current` (a rotation's `webhook_secret_previous`),
 * at any depth of a logged object, in arrays, in child-logger bindings and in serialized errors.
 * One list covers the camelCase fields of the code, the snake_case fields of the vaults and the
 * providers, the environment variables of the configuration schemas and the HTTP headers:
 * - `authorization`, `cookie` (and `set-cookie`): HTTP credentials and sessions;
 * - `password`, `passwordhash` (the console users' argon2 hashes), `passkey` (M-Pesa's pass key),
 *   `secret`, `secrets`, `secretkey` (every provider's secret key, `PAYSTACK_SECRET_KEY`...),
 *   `secrethash` (Flutterwave's webhook secret);
 * - `token` (sessions, CSRF, M-Pesa's OAuth and callback tokens), `apikey` (`SETTLE_API_KEY`,
 *   the console's admin keys), `masterkey`, `masterkeys` (the vaults' rings);
 * - `consumerkey` (M-Pesa's), `connectionstring` (KurrentDB's), `callbackurl` (an M-Pesa
 *   callback URL carries its secret token, `SANDBOX_MPESA_CALLBACK_URL`).
 *
 * The sources: the variables marked `secret` in the apps' configuration schemas (libs/config,
 * libs/vault, each provider's `definition.ts`), the providers' credential and webhook secret
 * names (`credentialNames`, `secretNames`), the console's session and CSRF tokens, and the
 * headers that carry credentials. `test/logging/redaction.unit.spec.ts` derives the same names
 * from those sources and fails when one is logged.
 */
export const REDACTED_NAME_ENDINGS: readonly string[] = [
  'authorization',
  'cookie',
  'password',
  'passwordhash',
  'passkey',
  'secret',
  'secrets',
  'secretkey',
  'secrethash',
  'token',
  'apikey',
  'masterkey',
  'masterkeys',
  'consumerkey',
  'connectionstring',
  'callbackurl',
];

/**
 * Field names redacted whatever their ending: `DATABASE_URL` (it may hold the PostgreSQL
 * password), Flutterwave's `verif-hash` header (the webhook secret itself) and
 * `OTEL_EXPORTER_OTLP_HEADERS` (a trace collector's credentials).
 */
export const REDACTED_NAMES: readonly string[] = ['databaseurl', 'verifhash', 'otelexporterotlpheaders'];

/** Deepest nesting the redaction walks into, levels; deeper values are replaced whole. */
const MAX_DEPTH = 12;

const normalise = (name: string) =>
  name
    .toLowerCase()
    .replace(/[-_]/g, '')
    .replace(/(previous|current)$/, '');
const exact = new Set(REDACTED_NAMES);

/** Whether a field of this name is never logged ({@link REDACTED_NAME_ENDINGS}, {@link REDACTED_NAMES}). */
export function isSecretField(name: string): boolean {
  const n = normalise(name);
  return exact.has(n) || REDACTED_NAME_ENDINGS.some((ending) => n.endsWith(ending));
}

/**
 * A copy of `value` with every secret field's value replaced by {@link REDACTED}, walking plain
 * objects and arrays; the input is never modified (what is unchanged is shared). Class
 * instances are left as they are: `Secret` prints itself redacted, errors are redacted after
 * their serialization (see {@link createLogger}).
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return REDACTED as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted !== item) (copy ??= [...(value as unknown[])])[i] = redacted;
    });
    return (copy ?? value) as T;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const redacted = isSecretField(key) ? REDACTED : redactSecrets(item, depth + 1);
    if (redacted !== item) (copy ??= { ...record })[key] = redacted;
  }
  return (copy ?? value) as T;
}

/**
 * pino's error serializer, its output (message, stack, `cause`, own fields) redacted: the
 * serialized error is copied to plain JSON first (the serializer's objects have a prototype of
 * their own, which {@link redactSecrets} does not walk).
 */
function redactedError(error: unknown): unknown {
  const serialized: unknown = error instanceof Error ? stdSerializers.err(error) : error;
  if (serialized === null || typeof serialized !== 'object') return serialized;
  try {
    return redactSecrets(JSON.parse(JSON.stringify(serialized)) as unknown);
  } catch {
    return { type: 'Error', message: REDACTED };
  }
}

/**
 * Structured JSON logger (pino): one JSON object per line on standard output, `app` on every
 * line. Secret fields ({@link isSecretField}) are redacted by the logger's configuration wherever
 * they appear: its `log` formatter passes every logged object through {@link redactSecrets}, its
 * `child` passes the bindings of every child logger (which pino's `bindings` formatter does not
 * see), and the `err` and `error` serializers redact the serialized error. (A
 * name-based walk rather than pino's `redact` paths: those reach only the depths written out, and
 * with wildcards cost 160 to 600 µs a line on this machine against about 1 µs.) Secrets held in
 * `Secret` objects print as `[redacted]` anyway. Messages are not redacted: never put a secret in
 * one.
 *
 * @param app - app name, added to every line as `app`.
 * @param level - pino level name (`fatal` ... `trace`, `silent`).
 * @param destination - where lines go; default standard output (tests pass a stream).
 */
export function createLogger(app: string, level = 'info', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { app },
    formatters: {
      bindings: (bindings: Record<string, unknown>) => redactSecrets(bindings),
      log: (object: Record<string, unknown>) => redactSecrets(object),
    },
    serializers: { err: redactedError, error: redactedError },
  };
  const logger = destination ? pino(options, destination) : pino(options);
  // Children inherit this `child` through their prototype, so grandchildren are redacted too.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with each child as `this`
  const child = logger.child;
  logger.child = function (this: Logger, bindings: Record<string, unknown>, childOptions?: Parameters<Logger['child']>[1]) {
    return child.call(this, redactSecrets(bindings), childOptions);
  } as Logger['child'];
  return logger;
}
