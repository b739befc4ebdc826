/**
 * The command line's configuration, read once from the environment. Refuses to start, naming the
 * variable (never its value), when one is missing or invalid.
 *
 * @typedef {object} Config
 * @property {string[]} brokers - Kafka bootstrap servers (`KAFKA_BROKERS`, comma-separated, required).
 * @property {string} registryUrl - the schema registry's Confluent-compatible API (`SCHEMA_REGISTRY_URL`, required).
 * @property {string} topicPrefix - Settle's topic prefix (`SETTLE_TOPIC_PREFIX`, default `settle`).
 * @property {string} clientId - the producer's name and principal, sent in the `settle-producer` header (`SETTLE_PRODUCER_ID`, required).
 * @property {string | undefined} resultsGroupId - the results consumer's group (`SETTLE_RESULTS_GROUP`, default `<SETTLE_PRODUCER_ID>-results`).
 * @property {boolean} ssl - TLS to the brokers (`KAFKA_SSL=true`).
 * @property {{ mechanism: string, username: string, password: string } | undefined} sasl - `KAFKA_SASL_MECHANISM` (`plain`, `scram-sha-256`, `scram-sha-512`), `KAFKA_SASL_USERNAME`, `KAFKA_SASL_PASSWORD`.
 * @property {{ username: string, password: string } | undefined} registryAuth - `SCHEMA_REGISTRY_USERNAME`, `SCHEMA_REGISTRY_PASSWORD`.
 * @property {number} resultTimeoutMs - how long each result is waited for, milliseconds (`RESULT_TIMEOUT_MS`, default 30,000).
 */

const SASL_MECHANISMS = new Set(['plain', 'scram-sha-256', 'scram-sha-512']);

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {Config}
 * @throws {Error} naming every missing or invalid variable.
 */
export function loadConfig(env) {
  const problems = [];
  const text = (name) => env[name]?.trim() || undefined;
  const required = (name) => {
    const value = text(name);
    if (!value) problems.push(`${name} is required`);
    return value ?? '';
  };
  const brokers = required('KAFKA_BROKERS')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const mechanism = text('KAFKA_SASL_MECHANISM')?.toLowerCase();
  if (mechanism && !SASL_MECHANISMS.has(mechanism)) problems.push('KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512');
  const sasl = mechanism ? { mechanism, username: required('KAFKA_SASL_USERNAME'), password: required('KAFKA_SASL_PASSWORD') } : undefined;
  const registryUser = text('SCHEMA_REGISTRY_USERNAME');
  const registryAuth = registryUser ? { username: registryUser, password: required('SCHEMA_REGISTRY_PASSWORD') } : undefined;
  const timeout = Number(text('RESULT_TIMEOUT_MS') ?? 30_000);
  if (!Number.isInteger(timeout) || timeout <= 0) problems.push('RESULT_TIMEOUT_MS must be a positive integer (milliseconds)');
  const config = {
    brokers,
    registryUrl: required('SCHEMA_REGISTRY_URL'),
    topicPrefix: text('SETTLE_TOPIC_PREFIX') ?? 'settle',
    clientId: required('SETTLE_PRODUCER_ID'),
    resultsGroupId: text('SETTLE_RESULTS_GROUP'),
    ssl: text('KAFKA_SSL') === 'true',
    sasl,
    registryAuth,
    resultTimeoutMs: timeout,
  };
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return config;
}
