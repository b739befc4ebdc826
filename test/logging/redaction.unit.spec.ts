/**
 * Secret redaction of the apps' logger (`createLogger`, libs/platform): every secret-bearing
 * field Settle has, found in its sources rather than listed by hand where a source exists, is
 * logged with a distinct value at the top level, nested, in an array, in a child logger's
 * bindings and on an error, and no value may appear in the output.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { FLUTTERWAVE_VERIF_HASH_HEADER, PROVIDER_DEFINITIONS } from '@settle/providers';
import { createLogger, isSecretField, redactSecrets, REDACTED } from '@settle/platform';
import { describe, expect, it } from 'vitest';
import { APP_ENV_SCHEMAS, appVariables, type AppName } from '../../scripts/config/env-examples.js';

/** Variables the configuration schemas mark `secret`, of every app. */
const configSecrets = (Object.keys(APP_ENV_SCHEMAS) as AppName[]).flatMap((app) =>
  appVariables(app)
    .filter((v) => v.secret)
    .map((v) => v.name),
);

/** The providers' credential names (verifier's vault), webhook secret names (ingestion's vault) and the local stack's variables of both. */
const providerSecrets = PROVIDER_DEFINITIONS.flatMap((d) => [
  ...d.credentialNames,
  d.webhook.secretNames.current,
  d.webhook.secretNames.previous,
  ...Object.values(d.stackVariables.credentials),
  d.stackVariables.webhookSecret,
]);

/** Headers that carry credentials: API keys, sessions, the console's CSRF token, Flutterwave's secret hash. */
const headers = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-csrf-token', FLUTTERWAVE_VERIF_HASH_HEADER];

/**
 * Fields of the code that hold a secret (found with `grep -rn` over apps/ and libs/ for secret,
 * token, password, key): the adapters' options, the console's sessions and CSRF tokens and its
 * users' passwords, the vaults' master keys, the local stack's generated keys
 * (`.settle/secrets.env`), KurrentDB's connection string.
 */
const codeFields = [
  'secret',
  'secretKey',
  'webhookSecret',
  'consumerKey',
  'consumerSecret',
  'passKey',
  'mpesaPassword',
  'accessToken',
  'access_token',
  'token',
  'sessionToken',
  'csrfToken',
  'csrf_token',
  'password',
  'newPassword',
  'passwordHash',
  'password_hash',
  'apiKey',
  'adminApiKey',
  'masterKeys',
  'masterKey',
  'connectionString',
  'databaseUrl',
  'SETTLE_API_KEY',
  'SETTLE_ADMIN_API_KEY',
  'SETTLE_WEBHOOK_VAULT_MASTER_KEYS',
  'SETTLE_ENDPOINT_VAULT_MASTER_KEYS',
  'CUSTOMER_WEBHOOK_SECRET',
  'KURRENTDB_CONNECTION_STRING',
];

const SECRET_FIELDS = [...new Set([...configSecrets, ...providerSecrets, ...headers, ...codeFields])];

/** A logger writing into an array of parsed lines, and the raw text. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('redaction-test', 'trace', stream), text: () => lines.join(''), lines };
}

/** A distinct, recognisable value per field. */
const valueOf = (field: string) => `leak-${field.replace(/\W/g, '')}-${randomBytes(6).toString('hex')}`;

describe('log redaction', () => {
  it('finds secrets in every source it is built from', () => {
    // The sources are not empty: a rename that empties one would silently weaken this test.
    expect(configSecrets).toEqual(expect.arrayContaining(['DATABASE_URL', 'SETTLE_VAULT_MASTER_KEYS', 'CONSOLE_INGESTION_ADMIN_API_KEY', 'MPESA_PASSKEY']));
    expect(providerSecrets).toEqual(expect.arrayContaining(['secret_key', 'consumer_secret', 'passkey', 'webhook_secret', 'webhook_secret_previous']));
  });

  it.each(SECRET_FIELDS)('never writes the value of %s, at the top level, nested, in arrays, in bindings or on errors', (field) => {
    const { logger, text, lines } = capture();
    const values = Array.from({ length: 7 }, () => valueOf(field));
    logger.info({ [field]: values[0] }, 'top level');
    logger.warn({ request: { headers: { [field]: values[1] } } }, 'nested');
    logger.error({ a: { b: { c: { d: { [field]: values[2] } } } } }, 'deeply nested');
    logger.info({ items: [{ [field]: values[3] }, { other: 'kept' }] }, 'in an array');
    logger.child({ config: { [field]: values[4] } }).info('in a child logger');
    logger.error({ err: Object.assign(new Error('failed'), { [field]: values[5], response: { [field]: values[6] } }) }, 'on an error');
    const output = text();
    for (const value of values) expect(output).not.toContain(value);
    expect(lines).toHaveLength(6);
    // Redacted, not dropped: each line still says the field was there.
    for (const line of lines) expect(line).toContain(REDACTED);
    expect(output).toContain('kept');
  });

  it('keeps the fields that only look alike: versions, time-outs, digests, counts', () => {
    for (const field of ['secretVersion', 'secret_version', 'tokenTtlMs', 'sessionTimeoutMs', 'adminApiKeySha256', 'reference', 'correlationId', 'key']) {
      expect(isSecretField(field), field).toBe(false);
    }
  });

  it('never modifies the object it was given', () => {
    const logged = { user: 'ada', headers: { authorization: 'Bearer abc' }, list: [{ password: 'p' }] };
    const copy = structuredClone(logged);
    const redacted = redactSecrets(logged);
    expect(logged).toEqual(copy);
    expect(redacted).toEqual({ user: 'ada', headers: { authorization: REDACTED }, list: [{ password: REDACTED }] });
    // What holds no secret is shared, not copied.
    const clean = { a: { b: 1 } };
    expect(redactSecrets(clean)).toBe(clean);
  });
});
