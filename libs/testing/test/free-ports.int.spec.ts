/**
 * `freePorts`: ports for the processes a test starts are taken below the kernel's ephemeral
 * range, so that no outgoing connection opened meanwhile can hold one when the process binds it.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralPortRange, freePorts, LISTEN_PORTS_FROM } from '@settle/testing';

const range = ephemeralPortRange();

const listen = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('freePorts', () => {
  it.skipIf(range === null)('hands out distinct ports below the ephemeral range, each free to bind afterwards', async () => {
    const ports = await freePorts(8);
    expect(new Set(ports).size).toBe(8);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(LISTEN_PORTS_FROM);
      expect(port).toBeLessThan(range!.low);
    }
    const servers = await Promise.all(ports.map(listen));
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });
});
