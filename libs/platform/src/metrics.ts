import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { healthAnswer, type HealthProbes } from './health.js';

/** A running metrics endpoint. */
export interface MetricsServer {
  /** The port it listens on. */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves a prom-client registry at `GET /metrics` for a worker app (the HTTP apps serve
 * theirs on their own port) and, given the worker's probes, its health at `GET /health/live`,
 * `GET /health/ready` and `GET /health` (see `healthAnswer`); every other path answers 404.
 *
 * @param port - TCP port on 0.0.0.0; 0 picks a free one.
 * @param health - the worker's readiness probes; none: no health routes.
 * @throws Error when the port cannot be bound.
 */
export async function startMetricsServer(registry: Registry, port: number, logger: Logger, health?: HealthProbes): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (request.method === 'GET' && health && path?.startsWith('/health')) {
      serveHealth(path, health, response, logger);
      return;
    }
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        logger.warn({ err: error }, 'metrics could not be collected');
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
