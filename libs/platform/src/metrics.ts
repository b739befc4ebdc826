import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/** A running metrics endpoint. */
export interface MetricsServer {
  /** The port it listens on. */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves a prom-client registry at `GET /metrics` for a worker app (the HTTP apps serve
 * theirs on their own port); every other path answers 404.
 *
 * @param port - TCP port on 0.0.0.0; 0 picks a free one.
 * @throws Error when the port cannot be bound.
 */
export async function startMetricsServer(registry: Registry, port: number, logger: Logger): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
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
  logger.info({ port: bound }, 'metrics at GET /metrics');
  return { port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
