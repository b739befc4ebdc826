import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { loadConsoleConfig, loadDispatcherConfig, loadIngestionConfig, loadProjectorConfig, loadSweeperConfig, loadVerifierConfig } from '@settle/config';
import { loadSandboxConfig } from '../apps/provider-sandbox/src/config.js';
import { DEFAULT_PARTITIONS } from '@settle/messaging';
import { loadWithProviderEnv } from '@settle/providers';
import { loadPrivacyKeyRing, privacyVaultConfigured } from '@settle/vault';
import { APP_TOPICS } from '../scripts/docs/asyncapi.js';

const DIR = new URL('../deploy/kubernetes/', import.meta.url);
const APPS = ['ingestion', 'verifier', 'ledger-projector', 'sweeper', 'dispatcher', 'console', 'provider-sandbox'] as const;
type App = (typeof APPS)[number];

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** The Kubernetes models (their JSON schemas, Kubernetes' OpenAPI definitions) by `apiVersion/kind`. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
};

/** Validates a manifest against its Kubernetes schema. @throws naming the invalid fields. */
function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const manifests: Array<Manifest & { file: string }> = files.flatMap((file) =>
  parseAllDocuments(readFileSync(new URL(file, DIR), 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return { ...(doc.toJS() as Manifest), file };
  }),
);
const kustomization = parseAllDocuments(readFileSync(new URL('kustomization.yaml', DIR), 'utf8'))[0]!.toJS() as {
  resources: string[];
  images: Array<{ name: string }>;
};

const of = <T>(kind: string) => manifests.filter((m) => m.kind === kind) as unknown as Array<T & Manifest & { file: string }>;
type DeploymentData = {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: { containers: IContainer[]; terminationGracePeriodSeconds?: number };
    };
  };
};
const deployments = of<DeploymentData>('Deployment');
const deployment = (app: App) => deployments.find((d) => d.metadata.name === app)!;
const container = (app: App) => deployment(app).spec.template.spec.containers[0]!;
const configMap = (name: string) => of<{ data: Record<string, string> }>('ConfigMap').find((c) => c.metadata.name === name)?.data;

/** Stand-ins for the values an app reads from Secrets, in the shape its configuration checks. */
function standIn(variable: string): string {
  if (variable.endsWith('_SHA256')) return 'ab'.repeat(32);
  if (variable === 'SETTLE_VAULT_MASTER_KEYS' || variable === 'SETTLE_PRIVACY_VAULT_MASTER_KEYS') return `v1:${Buffer.alloc(32, 7).toString('base64')}`;
  if (variable === 'DATABASE_URL') return 'postgres://settle:stand-in@postgres:5432/settle';
  if (variable === 'PAYSTACK_SECRET_KEY') return 'sk_test_stand_in';
  return `stand-in-for-${variable}`;
}

/** The environment a pod of the app gets: its ConfigMaps, then its Secrets as stand-ins. */
function podEnv(app: App): NodeJS.ProcessEnv {
  const c = container(app);
  const env: NodeJS.ProcessEnv = {};
  for (const source of c.envFrom ?? []) {
    const data = configMap(source.configMapRef!.name!);
    expect(data, `${app}: ConfigMap ${source.configMapRef!.name}`).toBeDefined();
    Object.assign(env, data);
  }
  for (const variable of c.env ?? []) env[variable.name] = variable.valueFrom?.secretKeyRef ? standIn(variable.name) : variable.value;
  return env;
}

describe('deploy/kubernetes', () => {
  it('every manifest is valid against its Kubernetes schema', () => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) expect(() => validate(manifest), `${manifest.file}: ${manifest.kind} ${manifest.metadata.name}`).not.toThrow();
  });

  it('the schema validation refuses a broken manifest', () => {
    const broken = structuredClone(deployment('verifier')) as unknown as Manifest & DeploymentData;
    (broken.spec.template.spec.containers[0]!.ports![0] as { containerPort: unknown }).containerPort = 'metrics';
    expect(() => validate(broken)).toThrow('containerPort');
    expect(() => validate({ ...broken, spec: { ...broken.spec, selector: undefined } })).toThrow('selector');
  });

  it('kustomization.yaml lists every manifest but the sandbox, and sets the image', () => {
    for (const resource of kustomization.resources) expect(existsSync(new URL(resource, DIR)), resource).toBe(true);
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'provider-sandbox.yaml').sort());
    expect(kustomization.images.map((i) => i.name)).toEqual(['settle']);
  });

  it('runs every app from the image, as its main.js, non-root and read-only', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...APPS].sort());
    for (const app of APPS) {
      const c = container(app);
      expect(existsSync(new URL(`../apps/${app}/src/main.ts`, import.meta.url)), app).toBe(true);
      expect(c.image, app).toBe('settle');
      expect(c.command, app).toEqual(['node', `dist/apps/${app}/src/main.js`]);
      expect((deployment(app).spec.template.spec as { securityContext?: { runAsNonRoot?: boolean } }).securityContext?.runAsNonRoot, app).toBe(true);
      expect(c.securityContext, app).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      expect(c.resources?.requests, app).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(c.resources?.limits?.memory, app).toEqual(expect.any(String));
    }
  });

  it('mounts a claim in more than one pod only when the claim is ReadWriteMany (or the mount read-only from ReadOnlyMany)', () => {
    const claims = new Map(of<{ spec: { accessModes: string[] } }>('PersistentVolumeClaim').map((c) => [c.metadata.name, c.spec.accessModes] as const));
    const pods = new Map<string, number>();
    for (const d of deployments) {
      const volumes = (d.spec.template.spec as { volumes?: Array<{ persistentVolumeClaim?: { claimName: string } }> }).volumes ?? [];
      for (const v of volumes)
        if (v.persistentVolumeClaim) pods.set(v.persistentVolumeClaim.claimName, (pods.get(v.persistentVolumeClaim.claimName) ?? 0) + d.spec.replicas + 1);
    }
    expect(pods.size).toBeGreaterThan(0);
    // Replicas plus one surge pod of a rolling update, summed over every Deployment that mounts the claim.
    for (const [claim, count] of pods) {
      expect(claims.has(claim), claim).toBe(true);
      if (count > 1) expect(claims.get(claim), claim).toContain('ReadWriteMany');
    }
  });

  it('selectors match the pod labels, and every Deployment has a PodDisruptionBudget', () => {
    const pdbs = of<{ spec: { selector: { matchLabels: Record<string, string> }; maxUnavailable?: number } }>('PodDisruptionBudget');
    for (const d of deployments) {
      expect(d.spec.template.metadata.labels, d.metadata.name).toMatchObject(d.spec.selector.matchLabels);
      const pdb = pdbs.filter((p) => Object.entries(p.spec.selector.matchLabels).every(([k, v]) => d.spec.template.metadata.labels[k] === v));
      expect(
        pdb.map((p) => p.metadata.name),
        d.metadata.name,
      ).toEqual([d.metadata.name]);
    }
  });

  it('probes every app on its health routes: readiness GET /health/ready, liveness GET /health/live, on the HTTP port or METRICS_PORT', () => {
    for (const app of APPS) {
      const c = container(app);
      const ports = (c.ports ?? []).map((p) => p.name);
      for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
        expect(probe, app).toBeDefined();
        const port = probe!.httpGet?.port ?? probe!.tcpSocket?.port;
        if (port !== undefined) expect(ports, app).toContain(port);
      }
      const http = ['ingestion', 'dispatcher', 'console', 'provider-sandbox'].includes(app);
      const port = http ? 'http' : 'metrics';
      expect(c.readinessProbe!.httpGet, app).toMatchObject({ path: '/health/ready', port });
      expect(c.livenessProbe!.httpGet, app).toMatchObject({ path: '/health/live', port });
      // A health answer is bounded (2 s per dependency, checked in parallel): the probe waits for it.
      for (const probe of [c.readinessProbe, c.livenessProbe]) expect(probe!.timeoutSeconds, app).toBeGreaterThanOrEqual(3);
      // The workers serve their health only when METRICS_PORT is set, on that port; they start once the ready file is written.
      if (!http) {
        expect(c.ports!.find((p) => p.name === 'metrics')?.containerPort, app).toBe(Number(podEnv(app).METRICS_PORT));
        expect(c.startupProbe!.exec?.command, app).toEqual(['test', '-f', podEnv(app).SETTLE_READY_FILE]);
      }
      // The ready file and the probes' /tmp are writable with a read-only root.
      expect(
        c.volumeMounts?.map((m) => m.mountPath),
        app,
      ).toContain('/tmp');
    }
  });

  it('has every app but the sandbox scraped on the port that serves its GET /metrics', () => {
    const served: Record<Exclude<App, 'provider-sandbox'>, number> = {
      ingestion: loadWithProviderEnv('ingestion', loadIngestionConfig, podEnv('ingestion')).http.port,
      verifier: loadWithProviderEnv('verifier', loadVerifierConfig, podEnv('verifier')).metricsPort ?? 0,
      'ledger-projector': loadProjectorConfig(podEnv('ledger-projector')).metricsPort ?? 0,
      sweeper: loadSweeperConfig(podEnv('sweeper')).metricsPort ?? 0,
      dispatcher: loadDispatcherConfig(podEnv('dispatcher')).http.port,
      console: loadConsoleConfig(podEnv('console')).http.port,
    };
    for (const [app, port] of Object.entries(served) as Array<[App, number]>) {
      expect(port, app).toBeGreaterThan(0);
      expect(deployment(app).spec.template.metadata.annotations, app).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
      expect(
        container(app).ports?.map((p) => p.containerPort),
        app,
      ).toContain(port);
    }
    expect(deployment('provider-sandbox').spec.template.metadata.annotations).toBeUndefined();
  });

  it('Services select an HTTP app and target its port', () => {
    for (const service of of<{ spec: { selector: Record<string, string>; ports: Array<{ port: number; targetPort: string }> } }>('Service')) {
      const app = service.metadata.name as App;
      expect(deployment(app).spec.template.metadata.labels).toMatchObject(service.spec.selector);
      const target = container(app).ports!.find((p) => p.name === service.spec.ports[0]!.targetPort);
      expect(target?.containerPort, app).toBe(service.spec.ports[0]!.port);
    }
  });

  it('bounds each worker’s replicas by the partitions of the topics it consumes', () => {
    for (const [app, side] of Object.entries(APP_TOPICS)) {
      if (side.receives.length === 0) continue;
      const replicas = deployment(app as App).spec.replicas;
      expect(replicas, app).toBeGreaterThanOrEqual(1);
      expect(replicas, app).toBeLessThanOrEqual(DEFAULT_PARTITIONS);
      expect(readFileSync(new URL(`${app}.yaml`, DIR), 'utf8'), app).toContain(`replicas beyond ${DEFAULT_PARTITIONS} sit idle`);
    }
  });

  it('gives each app every variable its configuration schema requires', () => {
    expect(loadWithProviderEnv('ingestion', loadIngestionConfig, podEnv('ingestion')).http).toMatchObject({ host: '0.0.0.0', port: 3000 });
    expect(loadWithProviderEnv('verifier', loadVerifierConfig, podEnv('verifier')).metricsPort).toBe(9464);
    const projector = loadProjectorConfig(podEnv('ledger-projector'));
    expect(projector.ledgerStore.kind).toBe('postgres');
    expect(projector.metricsPort).toBe(9464);
    expect(loadSweeperConfig(podEnv('sweeper')).metricsPort).toBe(9464);
    // The checkpoint sink is the mounted claim (docs/ledger.md, "Where checkpoints go"), which the console reads too.
    const sinkDir = loadProjectorConfig(podEnv('ledger-projector')).checkpoints.dir;
    expect(container('ledger-projector').volumeMounts?.some((m) => m.mountPath === sinkDir)).toBe(true);
    expect(loadConsoleConfig(podEnv('console')).ledgerCheckpoints.dir).toBe(sinkDir);
    expect(container('console').volumeMounts?.find((m) => m.mountPath === sinkDir)?.readOnly).toBe(true);
    expect(loadDispatcherConfig(podEnv('dispatcher')).http).toEqual({ host: '0.0.0.0', port: 3200 });
    const console = loadConsoleConfig(podEnv('console'));
    expect(console.ingestion.url).toBe('http://ingestion:3000');
    expect(console.kafka?.topicPrefix).toBe('settle');
    expect(loadSandboxConfig(podEnv('provider-sandbox')).providers.paystack.webhookUrl).toBe('http://ingestion:3000/v1/webhooks/paystack');
    // Each vault's master keys: read at boot by the vault, from a Secret no other app is given.
    const vaults = (['ingestion', 'verifier', 'dispatcher', 'ledger-projector'] as const).map(
      (app) => container(app).env!.find((e) => e.name === 'SETTLE_VAULT_MASTER_KEYS')?.valueFrom?.secretKeyRef?.name,
    );
    expect(new Set(vaults).size).toBe(4);
    expect(vaults.every(Boolean)).toBe(true);
    // The privacy vault's (docs/privacy.md, "Crypto-shredding"): the verifier seals with it, the console opens and erases; no other app holds them.
    const privacy = APPS.map(
      (app) => [app, container(app).env?.find((e) => e.name === 'SETTLE_PRIVACY_VAULT_MASTER_KEYS')?.valueFrom?.secretKeyRef?.name] as const,
    );
    expect(privacy.filter(([, secret]) => secret).map(([app, secret]) => [app, secret])).toEqual([
      ['verifier', 'settle-privacy-vault'],
      ['console', 'settle-privacy-vault'],
    ]);
    for (const app of ['verifier', 'console'] as const) {
      expect(privacyVaultConfigured(podEnv(app)), app).toBe(true);
      expect(loadPrivacyKeyRing(podEnv(app)).versions, app).toEqual(['v1']);
    }
    expect(vaults).not.toContain('settle-privacy-vault');
  });

  it('gives every app more time to stop than its graceful shutdown may take (SHUTDOWN_TIMEOUT_MS)', () => {
    const bounds: Record<App, number> = {
      ingestion: loadWithProviderEnv('ingestion', loadIngestionConfig, podEnv('ingestion')).shutdownTimeoutMs,
      verifier: loadWithProviderEnv('verifier', loadVerifierConfig, podEnv('verifier')).shutdownTimeoutMs,
      'ledger-projector': loadProjectorConfig(podEnv('ledger-projector')).shutdownTimeoutMs,
      sweeper: loadSweeperConfig(podEnv('sweeper')).shutdownTimeoutMs,
      dispatcher: loadDispatcherConfig(podEnv('dispatcher')).shutdownTimeoutMs,
      console: loadConsoleConfig(podEnv('console')).shutdownTimeoutMs,
      'provider-sandbox': loadSandboxConfig(podEnv('provider-sandbox')).shutdownTimeoutMs,
    };
    for (const app of APPS) {
      // Kubernetes' SIGKILL follows SIGTERM after the grace period (default 30 s): past the app's own bound.
      const grace = (deployment(app).spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1_000;
      expect(grace, app).toBeGreaterThan(bounds[app]);
    }
  });

  it('holds no secret value: secrets come from Secrets the operator creates', () => {
    expect(manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
    const secretLike = /SECRET|API_KEY|MASTER_KEY|PASSKEY|PASSWORD|DATABASE_URL|CONNECTION_STRING/;
    for (const map of of<{ data: Record<string, string> }>('ConfigMap')) {
      for (const key of Object.keys(map.data)) expect(secretLike.test(key), `${map.metadata.name}.${key}`).toBe(false);
    }
    for (const app of APPS) {
      for (const variable of container(app).env ?? []) {
        if (secretLike.test(variable.name)) expect(variable.valueFrom?.secretKeyRef, `${app}.${variable.name}`).toBeDefined();
      }
    }
  });
});
