import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * What the proxy does to new connections: `pass` forwards them, `blackhole` accepts them and
 * never answers nor forwards (a host that swallows packets), `reset` closes them at once with
 * a TCP reset, `latency` forwards after a delay.
 */
export type FaultMode = { kind: 'pass' } | { kind: 'blackhole' } | { kind: 'reset' } | { kind: 'latency'; ms: number };

/** A TCP fault proxy on loopback in front of one port. */
export interface FaultProxy {
  port: number;
  /**
   * Applies to connections opened from now on; `blackhole` and `reset` also cut the open ones,
   * and so does any mode with `cutOpen` (so that kept-alive connections meet a new `latency` too).
   */
  setMode(mode: FaultMode, options?: { cutOpen?: boolean }): void;
  close(): Promise<void>;
}

/**
 * Starts a small TCP fault proxy on 127.0.0.1 in front of `targetPort` (docs/reliability
 * tests; no third-party proxy runs on these machines). Traffic never leaves loopback.
 */
export async function startFaultProxy(targetPort: number, initial: FaultMode = { kind: 'pass' }): Promise<FaultProxy> {
  let mode = initial;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    const current = mode;
    if (current.kind === 'blackhole') {
      // Read and drop what arrives, never answer; let go of the socket once the client gives
      // up (its time-out), so a long run does not pile up half-closed sockets.
      client.on('data', () => undefined);
      client.on('end', () => client.destroy());
      return;
    }
    if (current.kind === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const forward = () => {
      if (client.destroyed) return;
      const upstream = connect(targetPort, '127.0.0.1');
      open.add(upstream);
      upstream.on('close', () => {
        open.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    };
    if (current.kind === 'latency') setTimeout(forward, current.ms);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    setMode(next, options = {}) {
      mode = next;
      if (next.kind === 'blackhole' || next.kind === 'reset' || options.cutOpen) for (const socket of open) socket.destroy();
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
