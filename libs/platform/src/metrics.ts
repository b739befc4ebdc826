import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { healthAnswer, type HealthProbes } from './health.js';

/**
 * A new Prometheus registry for one app, with prom-client's default process metrics collected
 * into it (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `nodejs_eventloop_lag_seconds`, `nodejs_heap_size_used_bytes`, the GC durations ...;
 * `collectDefaultMetrics`). Every app serves one such registry at `GET /metrics`, its own
 * metrics registered into it beside these (docs/observability.md).
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The answer of one route of the metrics server. */
export interface MetricsRouteAnswer {
  /** HTTP status code. */
  status: number;
  /** `Content-Type` of the body. */
  contentType: string;
  body: string;
}

/** A `GET` route of the metrics server: answers a request, or rejects (answered 500, logged). */
export type MetricsRoute = (request: IncomingMessage) => Promise<MetricsRouteAnswer>;

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /**
   * More `GET` routes served beside `/metrics`, by exact path (for example a health route);
   * `/metrics` itself cannot be replaced.
   */
  routes?: Readonly<Record<string, MetricsRoute>>;
  /**
   * The worker's readiness probes: its health at `GET /health/live`, `GET /health/ready` and
   * `GET /health` (see `healthAnswer`); none: no health routes.
   */
  health?: HealthProbes;
}

/** A running metrics endpoint. */
export interface MetricsServer {
  /** The port it listens on. */
  port: number;
  close(): Promise<void>;
}

/** The `/metrics` route of a registry: its text exposition format. */
export function registryRoute(registry: Registry): MetricsRoute {
  return async () => ({ status: 200, contentType: registry.contentType, body: await registry.metrics() });
}

/**
 * Serves a prom-client registry at `GET /metrics` for a worker app (the HTTP apps serve
 * theirs on their own port), any further `GET` routes given and, given the worker's probes, its
 * health at `GET /health/live`, `GET /health/ready` and `GET /health` (see `healthAnswer`); every
 * other path or method answers 404. A route that rejects answers 500 and is logged (`metrics
 * could not be collected` for `/metrics`).
 *
 * @param port - TCP port on 0.0.0.0; 0 picks a free one.
 * @throws Error when the port cannot be bound.
 */
export async function startMetricsServer(registry: Registry, port: number, logger: Logger, options: MetricsServerOptions = {}): Promise<MetricsServer> {
  const routes = new Map<string, MetricsRoute>(Object.entries(options.routes ?? {}));
  routes.set('/metrics', registryRoute(registry));
  const { health } = options;
  const server: Server = createServer((request, response) => {
    const path = request.url?.split('?')[0] ?? '';
    if (request.method === 'GET' && health && path.startsWith('/health')) {
      serveHealth(path, health, response, logger);
      return;
    }
    const route = request.method === 'GET' ? routes.get(path) : undefined;
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    route(request).then(
      (answer) => response.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body),
      (error: unknown) => {
        logger.warn({ err: error, path: request.url?.split('?')[0] }, 'metrics could not be collected');
        response.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  logger.info(
    { port: bound, health: health !== undefined },
    health ? 'metrics at GET /metrics, health at GET /health/live and /health/ready' : 'metrics at GET /metrics',
  );
  return { port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * A measurement taken on a timer rather than at scrape time: gauges read from PostgreSQL (a
 * count of due watches, of transactions in manual review) are refreshed every `intervalMs`,
 * so a scrape never waits on the database and the load stays one query per interval whatever
 * the number of scrapers. Runs never overlap; a run that fails is logged (warn) and the gauges
 * keep their last values until the next one succeeds.
 */
export class PeriodicMeasurement {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  /**
   * @param measure - reads and sets the gauges; may reject.
   * @param intervalMs - milliseconds between the end of one run and the start of the next.
   * @param what - names the measurement in the log line of a failed run.
   */
  constructor(
    private readonly measure: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** Measures now, then every interval until {@link stop}. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** One run now (also while stopped), after a run in progress; resolves once it ended, failed runs included. */
  async runOnce(): Promise<void> {
    await this.running;
    this.running = this.measure()
      .catch((error: unknown) => this.logger.warn({ err: error, measurement: this.what }, 'measurement failed; keeping the last values'))
      .finally(() => {
        this.running = null;
      });
    await this.running;
  }

  /** Stops the timer; resolves once a run in progress ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runOnce().then(() => this.schedule(this.intervalMs));
    }, delayMs);
    this.timer.unref();
  }
}

/** Answers a health route (`healthAnswer`); an unknown `/health...` path 404. */
function serveHealth(path: string, health: HealthProbes, response: ServerResponse, logger: Logger): void {
  healthAnswer(path, health).then(
    (answer) => {
      if (answer) response.writeHead(answer.status, answer.headers).end(answer.body);
      else response.writeHead(404).end();
    },
    (error: unknown) => {
      logger.warn({ err: error }, 'health could not be checked');
      response.writeHead(500).end();
    },
  );
}
