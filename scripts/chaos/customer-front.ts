import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What the front does to the dispatcher's deliveries: `pass` forwards them to the customer
 * backend, `status` answers with that status without forwarding (500: the backend fails, 410:
 * it is gone), `delay` forwards after `ms` milliseconds (an answer slower than the dispatcher's
 * time-out still reaches the backend), `down` cuts every connection (the backend is down).
 */
export type FrontMode = { kind: 'pass' } | { kind: 'status'; status: number } | { kind: 'delay'; ms: number } | { kind: 'down' };

/** An HTTP front on loopback between the dispatcher and the example customer backend. */
export interface CustomerFront {
  url: string;
  /** Applies to requests arriving from now on. */
  setMode(mode: FrontMode): void;
  /** Requests seen so far, by the mode that met them. */
  seen(): Record<FrontMode['kind'], number>;
  close(): Promise<void>;
}

/**
 * Starts the front on 127.0.0.1 in front of `targetUrl` (the customer backend's base URL):
 * requests are forwarded with their method, path, headers and exact body bytes.
 */
export async function startCustomerFront(targetUrl: string): Promise<CustomerFront> {
  let mode: FrontMode = { kind: 'pass' };
  const seen: Record<FrontMode['kind'], number> = { pass: 0, status: 0, delay: 0, down: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const current = mode;
    seen[current.kind] += 1;
    if (current.kind === 'down') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (current.kind === 'status') {
        res.writeHead(current.status, { 'content-type': 'application/json' }).end('{"error":"chaos"}');
        return;
      }
      const forward = async () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
        const answer = await fetch(new URL(req.url ?? '/', targetUrl), {
          method: req.method ?? 'POST',
          headers,
          body: chunks.length > 0 ? Buffer.concat(chunks) : null,
          signal: AbortSignal.timeout(30_000),
        });
        const body = Buffer.from(await answer.arrayBuffer());
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
      };
      const run = () => {
        forward().catch(() => res.destroy());
      };
      if (current.kind === 'delay') setTimeout(run, current.ms);
      else run();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    setMode(next) {
      mode = next;
      if (next.kind === 'down') for (const socket of sockets) socket.destroy();
    },
    seen: () => ({ ...seen }),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
