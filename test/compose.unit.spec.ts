/**
 * docker-compose.yml (README.md, "Docker"): valid against the Compose specification's JSON schema,
 * every service the stack needs, every variable each app's configuration schema requires, and no
 * secret written into it. Docker cannot run here, so this is what stands for `docker compose config`.
 *
 * The schema is test/fixtures/compose-spec.json, a copy of the Compose specification's own
 * (`schema/compose-spec.json` of github.com/compose-spec/compose-go at commit
 * e70e961c3a3acebf0800b882f1afb3dbf1fb74a2, v2.13.0 and later; Apache License 2.0), the file
 * `docker compose` validates with. To update it, replace the file with a newer copy and the commit here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConsoleConfig, loadDispatcherConfig, loadIngestionConfig, loadProjectorConfig, loadSweeperConfig, loadVerifierConfig } from '@settle/config';
import { loadSandboxConfig } from '../apps/provider-sandbox/src/config.js';
import { loadWithProviderEnv, PROVIDER_DEFINITIONS } from '@settle/providers';
import { loadMasterKeyRing } from '@settle/vault';

interface ComposeService {
  image?: string;
  profiles?: string[];
  volumes?: string[];
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, unknown>;
  stop_grace_period?: string;
  healthcheck?: { test?: string[]; interval?: string; timeout?: string; start_period?: string };
}

const compose = parse(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

const prometheusPath = fileURLToPath(new URL('../deploy/prometheus/prometheus.yml', import.meta.url));
const prometheus = parse(readFileSync(prometheusPath, 'utf8')) as {
  rule_files: string[];
  scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
};

/**
 * Interpolates a value as `docker compose` would for a caller who set only the required
 * variables: `${VAR:?message}` becomes a stand-in value, `${VAR:-default}` its default.
 */
function interpolateText(value: string): string {
  return value
    .replace(/\$\{([A-Z0-9_]+):\?[^}]*\}/g, (_m, name: string) => `stand-in-for-${name}`)
    .replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, (_m, fallback: string) => fallback);
}

/** {@link interpolateText} over a service's environment, as the app's process would see it. */
function interpolate(env: Record<string, string | number> = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolateText(String(v))]));
}

/** {@link interpolateText} over every string of a parsed document. */
function interpolateDocument(value: unknown): unknown {
  if (typeof value === 'string') return interpolateText(value);
  if (Array.isArray(value)) return value.map(interpolateDocument);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateDocument(v)]));
  return value;
}

/** The Compose specification's JSON schema (draft 2020-12), compiled; see the module comment for its source. */
function composeSchemaValidator() {
  const schema = JSON.parse(readFileSync(new URL('./fixtures/compose-spec.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  return new Ajv2020({ allErrors: true, strict: false }).compile(schema);
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification, after interpolation and before it', () => {
    const validate = composeSchemaValidator();
    for (const document of [compose, interpolateDocument(compose)]) {
      const valid = validate(document);
      expect(validate.errors ?? [], 'schema errors').toEqual([]);
      expect(valid).toBe(true);
    }
  });

  it('fails the Compose specification for a misspelt or misplaced key (the validation can fail)', () => {
    const validate = composeSchemaValidator();
    const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.ingestion!.enviroment = { LOG_LEVEL: 'debug' };
    expect(validate(broken)).toBe(false);
    const badDependsOn = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    badDependsOn.services.kafka!.depends_on = 'postgres';
    expect(validate(badDependsOn)).toBe(false);
  });

  it('parses and names every service the apps need', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'kafka',
        'schema-registry',
        'postgres',
        'kurrentdb',
        'provider-sandbox',
        'ingestion',
        'verifier',
        'ledger-projector',
        'sweeper',
        'dispatcher',
        'console',
        'prometheus',
      ].sort(),
    );
    expect(compose.services.kafka!.image).toBe('apache/kafka:3.9.1');
  });

  it('gives each app every variable its configuration schema requires', () => {
    const env = (name: string) => {
      const e = interpolate(compose.services[name]!.environment);
      // The compose file reads secrets from the caller's environment; a SHA-256 digest is hex.
      if (e.SETTLE_API_KEY_SHA256) e.SETTLE_API_KEY_SHA256 = 'ab'.repeat(32);
      if (e.SETTLE_VAULT_MASTER_KEYS) e.SETTLE_VAULT_MASTER_KEYS = `v1:${Buffer.alloc(32, 7).toString('base64')}`;
      return e;
    };
    expect(loadWithProviderEnv('ingestion', loadIngestionConfig, env('ingestion')).kafka.brokers).toEqual(['kafka:9092']);
    expect(loadWithProviderEnv('verifier', loadVerifierConfig, env('verifier')).providers.timeoutMs).toBeGreaterThan(0);
    expect(Object.fromEntries(PROVIDER_DEFINITIONS.map((d) => [d.name, env('verifier')[d.verifier.baseUrlVariable]]))).toEqual({
      paystack: 'http://provider-sandbox:3100',
      stripe: 'http://provider-sandbox:3100',
      flutterwave: 'http://provider-sandbox:3100',
      mpesa: 'http://provider-sandbox:3100',
    });
    const projector = loadProjectorConfig(env('ledger-projector'));
    expect(projector.database.url).toContain('@postgres:5432/');
    // The design card's event store: the projector appends to KurrentDB wherever compose runs it.
    expect(projector.ledgerStore.kind).toBe('kurrentdb');
    expect(loadSweeperConfig(env('sweeper')).recovery.inactivityMs).toBe(45_000);
    expect(loadSandboxConfig(env('provider-sandbox')).providers.paystack.webhookUrl).toBe('http://ingestion:3000/v1/webhooks/paystack');
    expect(loadDispatcherConfig(env('dispatcher')).http).toEqual({ host: '0.0.0.0', port: 3200 });
    expect(loadConsoleConfig(env('console')).ingestion.url).toBe('http://ingestion:3000');
    // The overview reads the stack's Kafka; the ledger is in KurrentDB there, which the console does not verify.
    expect(loadConsoleConfig(env('console')).kafka).toEqual({ brokers: ['kafka:9092'], topicPrefix: 'settle' });
    expect(loadConsoleConfig(env('console')).ledger.store).toBe(projector.ledgerStore.kind);
  });

  it('gives each app that opens a vault its master keys, from a variable of its own', () => {
    // The vaults' master keys are read by the vault (loadMasterKeyRing), not the configuration
    // schemas: ingestion's webhook vault, the verifier's credentials vault, the dispatcher's
    // endpoint vault (docs/vault.md), each under keys no other app holds.
    const sources: string[] = [];
    for (const app of ['ingestion', 'verifier', 'dispatcher']) {
      const raw = String(compose.services[app]!.environment?.SETTLE_VAULT_MASTER_KEYS ?? '');
      const source = /^\$\{([A-Z0-9_]+):\?/.exec(raw)?.[1];
      expect(source, `${app} reads SETTLE_VAULT_MASTER_KEYS from a required variable`).toBeDefined();
      sources.push(source!);
      const env = { ...interpolate(compose.services[app]!.environment), SETTLE_VAULT_MASTER_KEYS: `v1:${Buffer.alloc(32, 7).toString('base64')}` };
      expect(loadMasterKeyRing(env).versions).toEqual(['v1']);
    }
    expect(new Set(sources).size).toBe(3);
    for (const app of ['ledger-projector', 'sweeper', 'console', 'provider-sandbox']) {
      expect(compose.services[app]!.environment?.SETTLE_VAULT_MASTER_KEYS, app).toBeUndefined();
    }
  });

  it('runs every app from the built image, after the infrastructure it uses', () => {
    for (const app of ['ingestion', 'verifier', 'ledger-projector', 'sweeper', 'dispatcher', 'console']) {
      const service = compose.services[app]!;
      expect(service.command).toEqual(['node', `dist/apps/${app}/src/main.js`]);
      // The console needs no schema registry: PostgreSQL, Kafka's offsets for its overview, and ingestion's admin API to reconcile through.
      const infrastructure =
        app === 'console'
          ? ['dispatcher', 'ingestion', 'kafka', 'kurrentdb', 'postgres']
          : ['kafka', 'postgres', 'schema-registry', ...(app === 'ledger-projector' ? ['kurrentdb'] : [])];
      expect(Object.keys(service.depends_on ?? {}).sort()).toEqual(infrastructure.sort());
    }
  });

  it('gives every app more time to stop than its graceful shutdown may take (SHUTDOWN_TIMEOUT_MS)', () => {
    const bounds: Record<string, number> = {
      ingestion: loadWithProviderEnv('ingestion', loadIngestionConfig, {
        ...interpolate(compose.services.ingestion!.environment),
        SETTLE_API_KEY_SHA256: 'ab'.repeat(32),
      }).shutdownTimeoutMs,
      verifier: loadWithProviderEnv('verifier', loadVerifierConfig, interpolate(compose.services.verifier!.environment)).shutdownTimeoutMs,
      'ledger-projector': loadProjectorConfig(interpolate(compose.services['ledger-projector']!.environment)).shutdownTimeoutMs,
      sweeper: loadSweeperConfig(interpolate(compose.services.sweeper!.environment)).shutdownTimeoutMs,
      dispatcher: loadDispatcherConfig(interpolate(compose.services.dispatcher!.environment)).shutdownTimeoutMs,
      console: loadConsoleConfig(interpolate(compose.services.console!.environment)).shutdownTimeoutMs,
      'provider-sandbox': loadSandboxConfig(interpolate(compose.services['provider-sandbox']!.environment)).shutdownTimeoutMs,
    };
    for (const [app, bound] of Object.entries(bounds)) {
      // Docker sends SIGKILL after stop_grace_period (10 s unless set).
      const grace = /^(\d+)s$/.exec(compose.services[app]!.stop_grace_period ?? '10s');
      expect(grace, `${app}: stop_grace_period in seconds`).not.toBeNull();
      expect(Number(grace![1]) * 1_000, app).toBeGreaterThan(bound);
    }
  });

  it('scrapes every app (not the sandbox) as settle-<app> on the port that serves its GET /metrics, with the alert rules', () => {
    const env = (name: string) => {
      const e = interpolate(compose.services[name]!.environment);
      if (e.SETTLE_API_KEY_SHA256) e.SETTLE_API_KEY_SHA256 = 'ab'.repeat(32);
      return e;
    };
    const served = {
      ingestion: loadWithProviderEnv('ingestion', loadIngestionConfig, env('ingestion')).http.port,
      verifier: loadWithProviderEnv('verifier', loadVerifierConfig, env('verifier')).metricsPort,
      'ledger-projector': loadProjectorConfig(env('ledger-projector')).metricsPort,
      sweeper: loadSweeperConfig(env('sweeper')).metricsPort,
      dispatcher: loadDispatcherConfig(env('dispatcher')).http.port,
      console: loadConsoleConfig(env('console')).http.port,
    };
    expect(Object.values(served).every((port) => typeof port === 'number' && port > 0)).toBe(true);
    expect(Object.fromEntries(prometheus.scrape_configs.map((job) => [job.job_name, job.static_configs.flatMap((c) => c.targets)]))).toEqual(
      Object.fromEntries(Object.entries(served).map(([app, port]) => [`settle-${app}`, [`${app}:${String(port)}`]])),
    );
    expect(prometheus.rule_files).toEqual(['alerts.yml']);
    // Optional: it starts with `--profile monitoring`, and reads this folder's configuration.
    expect(compose.services.prometheus).toMatchObject({ profiles: ['monitoring'] });
    expect(compose.services.prometheus!.volumes).toContain('./deploy/prometheus:/etc/prometheus:ro');
  });

  const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  const promtoolMissing = promtool.error !== undefined || promtool.status !== 0;
  if (promtoolMissing)
    console.info(
      'promtool is not on PATH (./settle test provisions it: ensure_promtool, scripts/local/lib.sh): `promtool check config` of deploy/prometheus/prometheus.yml is skipped',
    );

  it.skipIf(promtoolMissing)('deploy/prometheus/prometheus.yml passes `promtool check config`', () => {
    const check = spawnSync('promtool', ['check', 'config', prometheusPath], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
  });

  it("checks every app's readiness, GET /health/ready on the port it serves it", () => {
    const PORT_VARIABLE: Record<string, string> = {
      ingestion: 'INGESTION_PORT',
      dispatcher: 'DISPATCHER_PORT',
      console: 'CONSOLE_PORT',
      'provider-sandbox': 'SANDBOX_PORT',
      verifier: 'METRICS_PORT',
      'ledger-projector': 'METRICS_PORT',
      sweeper: 'METRICS_PORT',
    };
    for (const [app, variable] of Object.entries(PORT_VARIABLE)) {
      const service = compose.services[app]!;
      const port = service.environment?.[variable];
      expect(port, `${app} ${variable}`).toBeDefined();
      const test = service.healthcheck?.test ?? [];
      expect(test.slice(0, 3), app).toEqual(['CMD', 'node', '-e']);
      expect(test[3], app).toContain(`fetch('http://127.0.0.1:${port}/health/ready')`);
      expect(test[3], app).toMatch(/process\.exit\(r\.ok \? 0 : 1\)/);
      expect(service.healthcheck?.timeout, app).toBeDefined();
    }
    // The console waits for the admin APIs it acts through to be ready.
    expect(compose.services.console!.depends_on).toMatchObject({ ingestion: { condition: 'service_healthy' }, dispatcher: { condition: 'service_healthy' } });
  });

  it('holds no secret values, only references to the environment', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (/SECRET|API_KEY|MASTER_KEYS|PASSKEY|CONSUMER_KEY/.test(key)) expect(String(value), `${name}.${key}`).toMatch(/^\$\{[A-Z0-9_]+:[?-]/);
      }
    }
  });
});
