import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_POLICY, SettleError } from '@settle/domain';
import {
  ConfigError,
  loadConsoleCliConfig,
  loadConsoleConfig,
  loadDispatcherConfig,
  loadIngestionConfig,
  loadLedgerStoreConfig,
  loadProjectorConfig,
  loadSweeperConfig,
  loadVerifierConfig,
  Secret,
  parseEnv,
  sandboxCommonEnv,
  secret as secretVariable,
  toSandboxCommon,
} from '@settle/config';

const base = {
  KAFKA_BROKERS: '127.0.0.1:19092, 127.0.0.1:19094',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
  DATABASE_URL: 'postgres://settle@127.0.0.1:5432/settle',
};

describe('configuration', () => {
  it('parses nested, typed settings with documented defaults', () => {
    const config = loadVerifierConfig({ ...base, PAYSTACK_BASE_URL: 'http://127.0.0.1:3100', PAYSTACK_SECRET_KEY: 'sk_test_cfg' });
    expect(config.kafka.brokers).toEqual(['127.0.0.1:19092', '127.0.0.1:19094']);
    expect(config.providers.timeoutMs).toBe(5_000);
    expect(config.providers.retry).toEqual({ maxAttempts: 4, initialDelayMs: 200, maxDelayMs: 5_000 });
  });

  it("delivers on the domain's retry schedule and disable period unless told otherwise", () => {
    const defaults = loadDispatcherConfig(base);
    expect(defaults.delivery.retry).toEqual(DEFAULT_RETRY_POLICY);
    expect(defaults.delivery.disableAfterMs).toBe(DEFAULT_DISABLE_AFTER_MS);
    expect(defaults.adminApiKeySha256).toEqual([]);
    const tuned = loadDispatcherConfig({ ...base, DISPATCHER_RETRY_SCHEDULE: '1s, 2m', SETTLE_ADMIN_API_KEY_SHA256: ' AB , cd,' });
    expect(tuned.delivery.retry.waitsMs).toEqual([1_000, 120_000]);
    expect(tuned.adminApiKeySha256).toEqual(['ab', 'cd']);
    expect(() => loadDispatcherConfig({ ...base, DISPATCHER_RETRY_SCHEDULE: '1s,soon' })).toThrow(ConfigError);
    // Results wait at most a second to be recorded: far within the lease that holds their deliveries.
    expect(defaults.delivery.resultFlushDelayMs).toBe(5);
    expect(loadDispatcherConfig({ ...base, DISPATCHER_RESULT_FLUSH_DELAY_MS: '1000' }).delivery.resultFlushDelayMs).toBe(1_000);
    expect(() => loadDispatcherConfig({ ...base, DISPATCHER_RESULT_FLUSH_DELAY_MS: '30000' })).toThrow(ConfigError);
  });

  it('refuses to boot without brokers, registry, database or secrets, naming each variable', () => {
    try {
      loadIngestionConfig({});
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).toBeInstanceOf(SettleError);
      expect(error).toMatchObject({ code: 'CONFIG.INVALID', kind: 'invalid' });
      const names = (error as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(names).toEqual(expect.arrayContaining(['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'DATABASE_URL', 'SETTLE_API_KEY_SHA256']));
    }
  });

  it('never echoes a value in its errors', () => {
    const secretish = 'sk_live_do_not_print_me';
    expect(() => loadIngestionConfig({ ...base, SETTLE_API_KEY_SHA256: 'ab', PAYSTACK_SECRET_KEY: 'x', INGESTION_PORT: secretish })).toThrow(ConfigError);
    try {
      loadIngestionConfig({ ...base, SETTLE_API_KEY_SHA256: 'ab', PAYSTACK_SECRET_KEY: 'x', INGESTION_PORT: secretish });
    } catch (error) {
      expect(String((error as Error).message)).not.toContain(secretish);
    }
  });

  it('keeps secrets out of logs, JSON and inspection', () => {
    const parsed = parseEnv(z.object({ SECRET_KEY: secretVariable('SECRET_KEY') }), { SECRET_KEY: 'sk_test_hidden_value' });
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const config = parsed.value;
    const secret = config.SECRET_KEY;
    expect(secret).toBeInstanceOf(Secret);
    expect(secret.reveal()).toBe('sk_test_hidden_value');
    for (const rendering of [JSON.stringify(config), String(secret), inspect(config, { depth: 10 }), `${secret.toString()}`]) {
      expect(rendering).not.toContain('sk_test_hidden_value');
    }
  });

  it('gives each worker its own pool size and partition concurrency by default, and takes both from the environment', () => {
    const verifier = { ...base, PAYSTACK_BASE_URL: 'http://127.0.0.1:3100' };
    expect(
      [loadVerifierConfig(verifier), loadProjectorConfig(base), loadSweeperConfig(base)].map((c) => [c.database.poolSize, c.worker.partitionsConcurrency]),
    ).toEqual([
      [10, 6],
      [10, 6],
      [5, 12],
    ]);
    expect(loadIngestionConfig({ ...base, SETTLE_API_KEY_SHA256: 'ab' }).database.poolSize).toBe(20);
    const tuned = loadSweeperConfig({ ...base, DATABASE_POOL_SIZE: '12', WORKER_PARTITIONS_CONCURRENCY: '4' });
    expect(tuned.database).toEqual({ url: base.DATABASE_URL, poolSize: 12, preparedStatements: true });
    expect(loadVerifierConfig({ ...verifier, DATABASE_PREPARED_STATEMENTS: 'false' }).database.preparedStatements).toBe(false);
    expect(() => loadProjectorConfig({ ...base, DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(ConfigError);
    expect(tuned.worker).toEqual({
      partitionsConcurrency: 4,
      fetch: { minBytes: 1, maxWaitTimeMs: 5_000, lingerMs: 10, maxBytesPerPartition: 131_072 },
      sessionTimeoutMs: 6_000,
      offsetCommitIntervalMs: 1_000,
      relayLingerMs: 5,
    });
    expect(loadIngestionConfig({ ...base, SETTLE_API_KEY_SHA256: 'ab' }).worker.relayLingerMs).toBe(25);
    expect(loadVerifierConfig({ ...base, PAYSTACK_BASE_URL: 'http://127.0.0.1:3100', OUTBOX_RELAY_LINGER_MS: '0' }).worker.relayLingerMs).toBe(0);
  });

  it("takes the consumer group's session time-out from WORKER_SESSION_TIMEOUT_MS, 30 s by default, at least 1 s", () => {
    expect(loadProjectorConfig({ ...base, WORKER_SESSION_TIMEOUT_MS: '6000' }).worker.sessionTimeoutMs).toBe(6_000);
    expect(() => loadProjectorConfig({ ...base, WORKER_SESSION_TIMEOUT_MS: '500' })).toThrow(/WORKER_SESSION_TIMEOUT_MS/);
  });

  it('coalesces repeatable verification requests for 5 s after an answer unless configured, and refuses a negative window', () => {
    const ingestion = { ...base, SETTLE_API_KEY_SHA256: 'ab' };
    expect(loadIngestionConfig(ingestion).verification).toEqual({ coalesceWindowMs: 5_000 });
    expect(loadIngestionConfig({ ...ingestion, SETTLE_VERIFY_COALESCE_MS: '250' }).verification).toEqual({ coalesceWindowMs: 250 });
    expect(() => loadIngestionConfig({ ...ingestion, SETTLE_VERIFY_COALESCE_MS: '-1' })).toThrow(ConfigError);
  });

  it('fetches as soon as anything waits, at most 128 KiB of a partition at once, lingering 10 ms after a small batch and committing offsets at most every second, unless fetch batching is configured, and verifies 64 references of a batch at once', () => {
    const verifier = { ...base, PAYSTACK_BASE_URL: 'http://127.0.0.1:3100' };
    expect(loadVerifierConfig(verifier).keyConcurrency).toBe(64);
    expect(loadVerifierConfig({ ...verifier, VERIFIER_KEY_CONCURRENCY: '8' }).keyConcurrency).toBe(8);
    const batched = loadProjectorConfig({ ...base, WORKER_FETCH_MIN_BYTES: '65536', WORKER_FETCH_MAX_WAIT_MS: '25', WORKER_FETCH_LINGER_MS: '0' });
    expect(batched.worker.fetch).toEqual({ minBytes: 65_536, maxWaitTimeMs: 25, lingerMs: 0, maxBytesPerPartition: 131_072 });
    expect(loadProjectorConfig({ ...base, WORKER_FETCH_MAX_BYTES_PER_PARTITION: '1048576' }).worker.fetch.maxBytesPerPartition).toBe(1_048_576);
    expect(() => loadProjectorConfig({ ...base, WORKER_FETCH_MAX_BYTES_PER_PARTITION: '512' })).toThrow(ConfigError);
    expect(() => loadProjectorConfig({ ...base, WORKER_FETCH_LINGER_MS: '-1' })).toThrow(ConfigError);
    expect(loadProjectorConfig(base).worker.offsetCommitIntervalMs).toBe(1_000);
    expect(loadProjectorConfig({ ...base, WORKER_OFFSET_COMMIT_INTERVAL_MS: '0' }).worker.offsetCommitIntervalMs).toBe(0);
    expect(() => loadProjectorConfig({ ...base, WORKER_OFFSET_COMMIT_INTERVAL_MS: '-1' })).toThrow(ConfigError);
    expect(() => loadProjectorConfig({ ...base, WORKER_FETCH_MAX_WAIT_MS: '0' })).toThrow(ConfigError);
  });

  it('refuses a pool or a concurrency below one, naming the variable', () => {
    try {
      loadProjectorConfig({ ...base, DATABASE_POOL_SIZE: '0', WORKER_PARTITIONS_CONCURRENCY: 'many' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual(['DATABASE_POOL_SIZE', 'WORKER_PARTITIONS_CONCURRENCY']);
    }
  });

  it('keeps the ledger on PostgreSQL unless LEDGER_STORE names KurrentDB, whose connection string it then requires and hides', () => {
    expect(loadProjectorConfig(base).ledgerStore).toEqual({ kind: 'postgres' });
    expect(loadLedgerStoreConfig({})).toEqual({ kind: 'postgres' });
    const connection = 'kurrentdb://admin:changeit@127.0.0.1:2113?tls=false';
    const onKurrent = loadProjectorConfig({ ...base, LEDGER_STORE: 'kurrentdb', KURRENTDB_CONNECTION_STRING: connection }).ledgerStore;
    expect(onKurrent.kind).toBe('kurrentdb');
    if (onKurrent.kind !== 'kurrentdb') return;
    expect(onKurrent.connectionString.reveal()).toBe(connection);
    expect(JSON.stringify(onKurrent)).not.toContain('changeit');
    try {
      loadLedgerStoreConfig({ LEDGER_STORE: 'kurrentdb' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual(['KURRENTDB_CONNECTION_STRING: KURRENTDB_CONNECTION_STRING is required when LEDGER_STORE=kurrentdb']);
    }
    expect(() => loadProjectorConfig({ ...base, LEDGER_STORE: 'mongodb' })).toThrow(ConfigError);
  });

  it('retries sandbox webhooks four times unless told otherwise', () => {
    // The sandbox's common variables; each simulated provider's are the sandbox app's (apps/provider-sandbox/test).
    expect(toSandboxCommon(sandboxCommonEnv.parse({})).webhookRetries).toBe(4);
    expect(toSandboxCommon(sandboxCommonEnv.parse({ SANDBOX_WEBHOOK_RETRIES: '10' })).webhookRetries).toBe(10);
  });

  it('configures the console: defaults, Secure cookies by default in production only, the admin key redacted, no Kafka needed', () => {
    const consoleVars = {
      DATABASE_URL: base.DATABASE_URL,
      CONSOLE_INGESTION_URL: 'http://127.0.0.1:3000',
      CONSOLE_INGESTION_ADMIN_API_KEY: 'console-admin-key',
    };
    const config = loadConsoleConfig(consoleVars);
    expect(config.http).toEqual({ host: '127.0.0.1', port: 3400 });
    expect(config.session).toEqual({ ttlMs: 28_800_000, secureCookies: false });
    expect(config.database).toEqual({ url: base.DATABASE_URL, poolSize: 5, preparedStatements: true });
    expect(config.ingestion.adminApiKey.reveal()).toBe('console-admin-key');
    expect(JSON.stringify(config)).not.toContain('console-admin-key');
    expect(loadConsoleConfig({ ...consoleVars, SETTLE_ENV: 'production' }).session.secureCookies).toBe(true);
    expect(loadConsoleConfig({ ...consoleVars, SETTLE_ENV: 'production', CONSOLE_SECURE_COOKIES: 'false' }).session.secureCookies).toBe(false);
    expect(loadConsoleConfig({ ...consoleVars, CONSOLE_SECURE_COOKIES: 'true', CONSOLE_SESSION_TTL_MS: '3600000' }).session).toEqual({
      ttlMs: 3_600_000,
      secureCookies: true,
    });
    expect(() => loadConsoleConfig({ ...consoleVars, CONSOLE_SECURE_COOKIES: 'yes' })).toThrow(ConfigError);
    expect(() => loadConsoleConfig({ ...consoleVars, CONSOLE_INGESTION_URL: 'not a url' })).toThrow(ConfigError);
    try {
      loadConsoleConfig({ DATABASE_URL: base.DATABASE_URL });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['CONSOLE_INGESTION_URL', 'CONSOLE_INGESTION_ADMIN_API_KEY']);
    }
    expect(loadConsoleCliConfig({ DATABASE_URL: base.DATABASE_URL }).database.url).toBe(base.DATABASE_URL);
  });

  it("configures the console's dispatcher admin API: both variables or neither, the key redacted", () => {
    const consoleVars = {
      DATABASE_URL: base.DATABASE_URL,
      CONSOLE_INGESTION_URL: 'http://127.0.0.1:3000',
      CONSOLE_INGESTION_ADMIN_API_KEY: 'console-admin-key',
    };
    expect(loadConsoleConfig(consoleVars).dispatcher).toBeNull();
    expect(loadConsoleConfig({ ...consoleVars, CONSOLE_DISPATCHER_URL: '', CONSOLE_DISPATCHER_ADMIN_API_KEY: ' ' }).dispatcher).toBeNull();
    const config = loadConsoleConfig({
      ...consoleVars,
      CONSOLE_DISPATCHER_URL: 'http://127.0.0.1:3200',
      CONSOLE_DISPATCHER_ADMIN_API_KEY: 'dispatcher-admin-key',
    });
    expect(config.dispatcher?.url).toBe('http://127.0.0.1:3200');
    expect(config.dispatcher?.adminApiKey.reveal()).toBe('dispatcher-admin-key');
    expect(JSON.stringify(config)).not.toContain('dispatcher-admin-key');
    const problemsOf = (vars: NodeJS.ProcessEnv) => {
      try {
        loadConsoleConfig(vars);
        return [];
      } catch (error) {
        return (error as ConfigError).problems.map((p) => p.split(':')[0]);
      }
    };
    expect(problemsOf({ ...consoleVars, CONSOLE_DISPATCHER_URL: 'http://127.0.0.1:3200' })).toEqual(['CONSOLE_DISPATCHER_ADMIN_API_KEY']);
    expect(problemsOf({ ...consoleVars, CONSOLE_DISPATCHER_ADMIN_API_KEY: 'dispatcher-admin-key' })).toEqual(['CONSOLE_DISPATCHER_URL']);
    expect(problemsOf({ ...consoleVars, CONSOLE_DISPATCHER_URL: 'not a url', CONSOLE_DISPATCHER_ADMIN_API_KEY: 'k' })).toEqual(['CONSOLE_DISPATCHER_URL']);
  });

  it("configures the console's optional Kafka reads and its ledger verification", () => {
    const consoleVars = { DATABASE_URL: base.DATABASE_URL, CONSOLE_INGESTION_URL: 'http://127.0.0.1:3000', CONSOLE_INGESTION_ADMIN_API_KEY: 'k' };
    const config = loadConsoleConfig(consoleVars);
    expect(config.kafka).toBeNull();
    expect(config.ledger).toEqual({ store: 'postgres', verifyIntervalMs: 60_000, fullVerifyIntervalMs: 86_400_000 });
    expect(loadConsoleConfig({ ...consoleVars, KAFKA_BROKERS: ' ' }).kafka).toBeNull();
    expect(loadConsoleConfig({ ...consoleVars, KAFKA_BROKERS: 'a:9092, b:9092' }).kafka).toEqual({ brokers: ['a:9092', 'b:9092'], topicPrefix: 'settle' });
    expect(loadConsoleConfig({ ...consoleVars, KAFKA_BROKERS: 'a:9092', SETTLE_TOPIC_PREFIX: 'e2e-1' }).kafka?.topicPrefix).toBe('e2e-1');
    expect(config.ledgerStore).toEqual({ kind: 'postgres' });
    const onKurrentDb = loadConsoleConfig({
      ...consoleVars,
      LEDGER_STORE: 'kurrentdb',
      KURRENTDB_CONNECTION_STRING: 'kurrentdb://127.0.0.1:2113?tls=false',
      CONSOLE_LEDGER_VERIFY_INTERVAL_MS: '5000',
      CONSOLE_LEDGER_FULL_VERIFY_INTERVAL_MS: '600000',
    });
    expect(onKurrentDb.ledger).toEqual({ store: 'kurrentdb', verifyIntervalMs: 5_000, fullVerifyIntervalMs: 600_000 });
    // The console opens that store itself (its timelines, its admin actions): it needs the server's address.
    expect(onKurrentDb.ledgerStore.kind === 'kurrentdb' && onKurrentDb.ledgerStore.connectionString.reveal()).toBe('kurrentdb://127.0.0.1:2113?tls=false');
    expect(() => loadConsoleConfig({ ...consoleVars, LEDGER_STORE: 'kurrentdb' })).toThrow(/KURRENTDB_CONNECTION_STRING/);
    expect(() => loadConsoleConfig({ ...consoleVars, SETTLE_TOPIC_PREFIX: 'Bad Prefix' })).toThrow(ConfigError);
    expect(() => loadConsoleConfig({ ...consoleVars, CONSOLE_LEDGER_VERIFY_INTERVAL_MS: '10' })).toThrow(ConfigError);
    expect(() => loadConsoleConfig({ ...consoleVars, LEDGER_STORE: 'sqlite' })).toThrow(ConfigError);
  });
});
