/**
 * The KurrentDB (EventStoreDB) server the KurrentDB test suites run against: the one
 * `KURRENTDB_CONNECTION_STRING` names, else a container of its own started through testcontainers
 * where a Docker engine is reachable, else none, and the suite is skipped with the reason.
 *
 * The container path is written but has never been run on the project's own machines, which
 * have no Docker engine (docs/ledger.md, "KurrentDB").
 */
import type { StartedTestContainer } from 'testcontainers';

/**
 * The image the container path starts when `KURRENTDB_TEST_IMAGE` is not set: the one
 * docker-compose.yml runs (a unit test keeps them the same).
 */
export const DEFAULT_KURRENTDB_TEST_IMAGE = 'docker.kurrent.io/kurrent-latest/kurrentdb:25.0';

/**
 * How long, in milliseconds, a suite's `beforeAll` gives {@link KurrentDbForTests.start}: the
 * container path may pull the image (and testcontainers' own reaper image) first.
 */
export const KURRENTDB_START_TIMEOUT_MS = 300_000;

/** The server's HTTP and gRPC port inside the container. */
const KURRENTDB_PORT = 2113;

/** A running KurrentDB server for a suite. */
export interface RunningKurrentDb {
  /** `kurrentdb://<host>:<port>?tls=false`: what `KurrentDbLedger` and `KURRENTDB_CONNECTION_STRING` take. */
  connectionString: string;
  /** Stops and removes the container this suite started; does nothing to a server named by `KURRENTDB_CONNECTION_STRING`. */
  stop(): Promise<void>;
}

/** Where a suite's KurrentDB server comes from, decided before the suite is collected. */
export interface KurrentDbForTests {
  /**
   * `environment`: the server `KURRENTDB_CONNECTION_STRING` names (started by whoever set it);
   * `container`: a container {@link KurrentDbForTests.start} starts through testcontainers.
   */
  source: 'environment' | 'container';
  /** The image the container path starts (`KURRENTDB_TEST_IMAGE`, default {@link DEFAULT_KURRENTDB_TEST_IMAGE}); `undefined` for `environment`. */
  image: string | undefined;
  /**
   * Returns the server: at once for `environment`; for `container`, once the container answers
   * `GET /health/live` on 2113 with a 2xx (within 120 s of its start; pulling the image comes
   * before and is not counted). Call it in a `beforeAll` with {@link KURRENTDB_START_TIMEOUT_MS}.
   *
   * @throws Error when the container cannot be started (image pull refused, the engine gone,
   * no healthy answer in time): the Docker engine was found, so the suite fails rather than skip.
   */
  start(): Promise<RunningKurrentDb>;
}

/** What {@link kurrentDbForTests} reads and probes; the defaults are the process's. */
export interface KurrentDbForTestsOptions {
  /** The variables read (`KURRENTDB_CONNECTION_STRING`, `KURRENTDB_TEST_IMAGE`); default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Resolves when a container runtime is reachable and rejects, with why, when not. Default:
   * testcontainers' `getContainerRuntimeClient()` (DOCKER_HOST, `~/.testcontainers.properties`,
   * the Docker socket, the rootless socket).
   */
  probeRuntime?: () => Promise<unknown>;
  /** Milliseconds the probe may take before the runtime counts as unreachable; default 10 000. */
  probeTimeoutMs?: number;
}

/**
 * Decides where a KurrentDB suite's server comes from, without starting anything:
 * `KURRENTDB_CONNECTION_STRING` when set (not blank), else a container when a container runtime
 * answers the probe within `probeTimeoutMs`, else the reason the suite is skipped, which names
 * both ways to run it. Await it at the top of the spec (vitest decides skips when it collects
 * the file) and call `start()` in `beforeAll`.
 *
 * @returns the source, or the skip reason (a sentence, no prefix). Never rejects: a probe that
 * fails or hangs is an unreachable runtime.
 */
export async function kurrentDbForTests(options: KurrentDbForTestsOptions = {}): Promise<KurrentDbForTests | string> {
  const env = options.env ?? process.env;
  const connectionString = env.KURRENTDB_CONNECTION_STRING?.trim();
  if (connectionString) {
    return { source: 'environment', image: undefined, start: async () => ({ connectionString, stop: async () => undefined }) };
  }
  const probe = options.probeRuntime ?? defaultProbe;
  const why = await unreachable(probe, options.probeTimeoutMs ?? 10_000);
  if (why !== undefined) {
    return (
      `KURRENTDB_CONNECTION_STRING is not set and no Docker engine is reachable (${why}): no EventStoreDB/KurrentDB server on this machine. ` +
      'To run it, set KURRENTDB_CONNECTION_STRING (kurrentdb://127.0.0.1:2113?tls=false with `docker compose up kurrentdb`, see docker-compose.yml), ' +
      'or run it where a Docker engine is reachable: it then starts a KurrentDB container itself (testcontainers)'
    );
  }
  const image = env.KURRENTDB_TEST_IMAGE?.trim() || DEFAULT_KURRENTDB_TEST_IMAGE;
  return { source: 'container', image, start: () => startKurrentDbContainer(image) };
}

async function defaultProbe(): Promise<unknown> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  return getContainerRuntimeClient();
}

/** `undefined` when the probe resolves within `timeoutMs`; otherwise why not. */
async function unreachable(probe: () => Promise<unknown>, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer from the container runtime probe within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([
      probe().then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An insecure single-node KurrentDB from `image`, its 2113 published on a free host port.
 * @throws Error when the container does not start or answer `/health/live` within 120 s.
 */
async function startKurrentDbContainer(image: string): Promise<RunningKurrentDb> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container: StartedTestContainer = await new GenericContainer(image)
    .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_RUN_PROJECTIONS: 'All', KURRENTDB_CLUSTER_SIZE: '1' })
    .withExposedPorts(KURRENTDB_PORT)
    .withWaitStrategy(Wait.forHttp('/health/live', KURRENTDB_PORT))
    .withStartupTimeout(120_000)
    .start();
  return {
    connectionString: `kurrentdb://${container.getHost()}:${container.getMappedPort(KURRENTDB_PORT)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}
