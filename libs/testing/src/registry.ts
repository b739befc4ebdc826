import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { freePorts } from './stack.js';

const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../../../' : '../../../', import.meta.url));

/** A throwaway Apicurio schema registry of its own, for tests that kill and restart it. */
export interface OwnRegistry {
  /** The Confluent-compatible API's base URL (`.../apis/ccompat/v7`), what the apps take as `SCHEMA_REGISTRY_URL`. */
  url: string;
  /** Stops it with a signal (SIGKILL simulates a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same ports and storage, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it and deletes its folder. */
  destroy(): Promise<void>;
  /** Its log, for a failing test's message. */
  log(): string;
}

/** Where the schemas are kept: in memory (lost on every restart, as `scripts/local/infra.sh` runs it) or in PostgreSQL. */
export type RegistryStorage = { kind: 'memory' } | { kind: 'postgres'; host: string; port: number; database: string; user: string };

/** The first Java 21 or later: `SETTLE_JAVA_HOME`, `java` on the PATH, then `/usr/lib/jvm/*`. */
function java21(): string {
  const candidates = [
    ...(process.env.SETTLE_JAVA_HOME ? [join(process.env.SETTLE_JAVA_HOME, 'bin', 'java')] : []),
    'java',
    ...(existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm').map((d) => join('/usr/lib/jvm', d, 'bin', 'java')) : []),
  ];
  for (const candidate of candidates) {
    const version = spawnSync(candidate, ['-version'], { encoding: 'utf8' });
    const major = /version "(\d+)/.exec(version.stderr ?? '')?.[1];
    if (major && Number(major) >= 21) return candidate;
  }
  throw new Error('the schema registry needs Java 21 or later (set SETTLE_JAVA_HOME)');
}

/**
 * Starts Apicurio Registry from the jars `scripts/local/infra.sh` provisioned
 * (`$SETTLE_HOME/apicurio`, default `.settle/apicurio`), on free loopback ports (its HTTP API
 * and its management interface), with `storage` (default in memory).
 *
 * @throws Error when the jars or a Java 21 are missing, or it does not answer within 90 s.
 */
export async function startOwnRegistry(storage: RegistryStorage = { kind: 'memory' }): Promise<OwnRegistry> {
  const home = join(process.env.SETTLE_HOME ?? join(ROOT, '.settle'), 'apicurio');
  if (!existsSync(join(home, 'quarkus-run.jar'))) throw new Error(`no Apicurio Registry in ${home}: run scripts/local/infra.sh provision`);
  const javaBin = java21();
  const dir = mkdtempSync(join(tmpdir(), 'settle-registry-'));
  const logFile = join(dir, 'registry.log');
  const [port, management] = (await freePorts(2)) as [number, number];
  const storageArgs =
    storage.kind === 'memory'
      ? []
      : [
          '-Dapicurio.storage.kind=sql',
          '-Dapicurio.storage.sql.kind=postgresql',
          `-Dapicurio.datasource.url=jdbc:postgresql://${storage.host}:${storage.port}/${storage.database}`,
          `-Dapicurio.datasource.username=${storage.user}`,
          // Trust authentication: the driver needs a value, the server ignores it.
          '-Dapicurio.datasource.password=unused',
        ];
  const args = [
    '-Xms64m',
    '-Xmx256m',
    '-Dquarkus.http.host=127.0.0.1',
    `-Dquarkus.http.port=${port}`,
    '-Dquarkus.management.host=127.0.0.1',
    `-Dquarkus.management.port=${management}`,
    '-Dquarkus.log.level=WARN',
    '-Dquarkus.banner.enabled=false',
    ...storageArgs,
    '-jar',
    'quarkus-run.jar',
  ];
  const url = `http://127.0.0.1:${port}/apis/ccompat/v7`;
  let child: ChildProcess | null = null;
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const registry: OwnRegistry = {
    url,
    log,
    async start() {
      const out = openSync(logFile, 'a');
      const started = spawn(javaBin, args, { cwd: home, stdio: ['ignore', out, out] });
      child = started;
      await waitUntil('the test registry to answer', 90_000, async () => {
        if (started.exitCode !== null) throw new Error(`the registry exited with ${started.exitCode}:\n${log().slice(-2_000)}`);
        const ok = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.ok,
          () => false,
        );
        return ok ? true : undefined;
      });
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill(signal);
      });
      child = null;
    },
    async destroy() {
      await registry.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await registry.start();
  } catch (error) {
    await registry.destroy();
    throw error;
  }
  return registry;
}
