/**
 * The example's configuration, read once from the environment. Refuses to start, naming the
 * variable (never its value), when one is missing or invalid.
 *
 * @typedef {object} Config
 * @property {string} host - listen address (`HOST`, default 127.0.0.1).
 * @property {number} port - listen port (`PORT`, default 4000; 0 picks a free one).
 * @property {string} databaseUrl - PostgreSQL connection string (`DATABASE_URL`, required: the example's own table, and the kit's with the PostgreSQL store).
 * @property {'postgres' | 'redis'} store - the kit's store (`RECEIVER_STORE`, default postgres).
 * @property {string | undefined} redisUrl - Redis, for `RECEIVER_STORE=redis` (`REDIS_URL`, required then).
 * @property {string} redisKeyPrefix - prefix of the kit's Redis keys (`REDIS_KEY_PREFIX`, default `settle-receiver:`).
 * @property {'require' | 'warn' | 'off'} redisPersistence - the Redis store's persistence check (`REDIS_PERSISTENCE`, default require).
 * @property {string[]} webhookSecrets - `whsec_` endpoint secrets, current first (`SETTLE_WEBHOOK_SECRETS`, comma-separated, required).
 * @property {string | undefined} readyFile - where to write the pid once listening (`SETTLE_READY_FILE`).
 * @property {string} logLevel - pino level (`LOG_LEVEL`, default info).
 * @property {number} failFirstRuns - make the first n runs of each event throw (`EXAMPLE_FAIL_FIRST_RUNS`, default 0).
 * @property {number} runDelayMs - each run waits this long, in milliseconds, inside the kit's transaction (`EXAMPLE_RUN_DELAY_MS`, default 0).
 * @property {number | undefined} retryMaxAttempts - runs before an event is left failed (`RETRY_MAX_ATTEMPTS`, kit default 8).
 * @property {number | undefined} retryInitialDelayMs - wait before the second run, doubling (`RETRY_INITIAL_DELAY_MS`, kit default 1000).
 */

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {Config}
 * @throws {Error} naming every missing or invalid variable.
 */
export function loadConfig(env) {
  const problems = [];
  const required = (name) => {
    const value = env[name]?.trim();
    if (!value) problems.push(`${name} is required`);
    return value ?? '';
  };
  const integer = (name, fallback) => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) problems.push(`${name} must be a non-negative integer`);
    return value;
  };
  const store = env.RECEIVER_STORE?.trim() || 'postgres';
  if (store !== 'postgres' && store !== 'redis') problems.push('RECEIVER_STORE must be postgres or redis');
  const redisPersistence = env.REDIS_PERSISTENCE?.trim() || 'require';
  if (!['require', 'warn', 'off'].includes(redisPersistence)) problems.push('REDIS_PERSISTENCE must be require, warn or off');
  const config = {
    host: env.HOST?.trim() || '127.0.0.1',
    port: integer('PORT', 4000),
    databaseUrl: required('DATABASE_URL'),
    store,
    redisUrl: store === 'redis' ? required('REDIS_URL') : undefined,
    redisPersistence,
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'settle-receiver:',
    webhookSecrets: required('SETTLE_WEBHOOK_SECRETS')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    readyFile: env.SETTLE_READY_FILE?.trim() || undefined,
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    failFirstRuns: integer('EXAMPLE_FAIL_FIRST_RUNS', 0),
    runDelayMs: integer('EXAMPLE_RUN_DELAY_MS', 0),
    retryMaxAttempts: integer('RETRY_MAX_ATTEMPTS', undefined),
    retryInitialDelayMs: integer('RETRY_INITIAL_DELAY_MS', undefined),
  };
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return config;
}
