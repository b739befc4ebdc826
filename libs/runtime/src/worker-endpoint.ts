import { Module, type DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEdgeApp, HealthModule } from '@settle/http';
import type { HealthProbes, Logger } from '@settle/platform';
import type { Registry } from 'prom-client';

/**
 * Largest request body the endpoint reads, bytes: it answers only `GET`s, so any body is refused
 * with 413 `REQUEST.BODY_TOO_LARGE` past this.
 */
export const WORKER_ENDPOINT_BODY_LIMIT_BYTES = 1024;

/** A worker's running metrics and health endpoint. */
export interface WorkerEndpoint {
  /** The port it listens on (the one asked for, or the one picked for 0). */
  port: number;
  /** Closes its HTTP server (a scrape in flight finishes). */
  close(): Promise<void>;
}

/** The endpoint's routes: terminus's health routes and `GET /metrics` ({@link HealthModule}). */
@Module({})
class WorkerEndpointModule {
  static forRoot(probes: HealthProbes, registry: Registry): DynamicModule {
    return { module: WorkerEndpointModule, imports: [HealthModule.forRoot({ probes, metrics: registry })] };
  }
}

/**
 * Starts a Kafka worker's metrics and health endpoint on `METRICS_PORT` (docs/observability.md,
 * "Health" and "Metrics"): a Nest application of its own on the shared HTTP edge
 * (`createEdgeApp`: RFC 9457 problem details for anything but its routes, security headers, the
 * HTTP latency histogram, the request log with scrapes at `debug`), serving what every Settle
 * app serves, through `@nestjs/terminus`:
 * - `GET /health/live`: 200 while the process answers;
 * - `GET /health/ready` (and `GET /health`): 200 when no probe is down, else 503 problem details
 *   `HEALTH.NOT_READY` with terminus's `info`, `error` and `details`, and `Retry-After: 5`;
 * - `GET /metrics`: the worker's registry in Prometheus's text format.
 * It is apart from the worker's own Nest microservice, whose transport is Kafka: a microservice
 * has no HTTP server, and the endpoint must outlive the consumer loops' stop so that readiness
 * answers `down` while they drain.
 *
 * @param port - TCP port on 0.0.0.0; 0 picks a free one.
 * @throws Error when the port cannot be bound.
 */
export async function startWorkerEndpoint(probes: HealthProbes, registry: Registry, port: number, logger: Logger): Promise<WorkerEndpoint> {
  const app: NestFastifyApplication = await createEdgeApp(WorkerEndpointModule.forRoot(probes, registry), {
    bodyLimitBytes: WORKER_ENDPOINT_BODY_LIMIT_BYTES,
    metrics: registry,
    logger,
  });
  try {
    await app.listen(port, '0.0.0.0');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const bound = (app.getHttpServer().address() as { port: number }).port;
  logger.info({ port: bound }, 'metrics at GET /metrics, health at GET /health/live and /health/ready');
  return { port: bound, close: () => app.close() };
}
