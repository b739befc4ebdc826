import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  loadConsoleConfig,
  loadDispatcherConfig,
  loadIngestionConfig,
  loadProjectorConfig,
  loadSandboxConfig,
  loadSweeperConfig,
  loadVerifierConfig,
} from '@settle/config';
import { loadWithProviderEnv, PROVIDER_DEFINITIONS } from '@settle/providers';

interface ComposeService {
  image?: string;
  profiles?: string[];
  volumes?: string[];
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, unknown>;
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
 * Interpolates as `docker compose` would for a caller who set only the required variables:
 * `${VAR:?message}` becomes a stand-in value, `${VAR:-default}` its default.
 */
function interpolate(env: Record<string, string | number> = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [
      k,
      String(v)
        .replace(/\$\{([A-Z0-9_]+):\?[^}]*\}/g, (_m, name: string) => `stand-in-for-${name}`)
        .replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, (_m, fallback: string) => fallback),
    ]),
  );
}

describe('docker-compose.yml', () => {
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
    expect(loadSandboxConfig(env('provider-sandbox')).paystack.webhookUrl).toBe('http://ingestion:3000/v1/webhooks/paystack');
    expect(loadDispatcherConfig(env('dispatcher')).http).toEqual({ host: '0.0.0.0', port: 3200 });
    expect(loadConsoleConfig(env('console')).ingestion.url).toBe('http://ingestion:3000');
    // The overview reads the stack's Kafka; the ledger is in KurrentDB there, which the console does not verify.
    expect(loadConsoleConfig(env('console')).kafka).toEqual({ brokers: ['kafka:9092'], topicPrefix: 'settle' });
    expect(loadConsoleConfig(env('console')).ledger.store).toBe(projector.ledgerStore.kind);
  });

  it('runs every app from the built image, after the infrastructure it uses', () => {
    for (const app of ['ingestion', 'verifier', 'ledger-projector', 'sweeper', 'dispatcher', 'console']) {
      const service = compose.services[app]!;
      expect(service.command).toEqual(['node', `dist/apps/${app}/src/main.js`]);
      // The console needs no schema registry: PostgreSQL, Kafka's offsets for its overview, and ingestion's admin API to reconcile through.
      const infrastructure =
        app === 'console'
          ? ['dispatcher', 'ingestion', 'kafka', 'postgres']
          : ['kafka', 'postgres', 'schema-registry', ...(app === 'ledger-projector' ? ['kurrentdb'] : [])];
      expect(Object.keys(service.depends_on ?? {}).sort()).toEqual(infrastructure.sort());
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
    console.info('promtool is not installed (Debian: apt-get install prometheus): `promtool check config` of deploy/prometheus/prometheus.yml is skipped');

  it.skipIf(promtoolMissing)('deploy/prometheus/prometheus.yml passes `promtool check config`', () => {
    const check = spawnSync('promtool', ['check', 'config', prometheusPath], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
  });

  it('holds no secret values, only references to the environment', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (/SECRET|API_KEY|MASTER_KEYS|PASSKEY|CONSUMER_KEY/.test(key)) expect(String(value), `${name}.${key}`).toMatch(/^\$\{[A-Z0-9_]+:[?-]/);
      }
    }
  });
});
