import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../../scripts/ops/clients.js';

const SERVER = fileURLToPath(
  new URL(import.meta.url.includes('/dist/') ? '../../../../libs/testing/src/endpoint-server.ts' : './endpoint-server.ts', import.meta.url),
);

/** One scripted answer of the endpoint stand-in (see endpoint-server.ts). */
export interface EndpointAnswer {
  status?: number;
  delayMs?: number;
  retryAfter?: string;
  body?: string;
}

/** A delivery the endpoint stand-in received. */
export interface ReceivedDelivery {
  eventId: string | null;
  webhookId: string | null;
  timestamp: string | null;
  /** The W3C `traceparent` the attempt carried (while the dispatcher traces), else `null`. */
  traceparent: string | null;
  signatures: number;
  verified: boolean;
  answered: number;
  at: number;
  body: string;
}

/** A customer endpoint stand-in running as its own process. */
export interface EndpointProcess {
  port: number;
  url: string;
  /**
   * Scripts the next answers, then `otherwise` (200 by default); replaces the accepted secrets
   * when given; `paths` answers requests to those paths always the same way.
   */
  control(script: EndpointAnswer[], otherwise?: EndpointAnswer, secrets?: string[], paths?: Record<string, EndpointAnswer>): Promise<void>;
  received(): Promise<ReceivedDelivery[]>;
  /** How many deliveries arrived, and how many were answered 2xx. */
  stats(): Promise<{ received: number; answered: number }>;
  /** Stops the process (SIGKILL: the endpoint is down; connections are refused). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port, with the secrets it last accepted (its script and record start afresh). */
  start(): Promise<void>;
}

/**
 * Starts the endpoint stand-in (scripts/harness/endpoint-server.ts) as a child process on
 * loopback and waits until it listens. `port` 0 picks a free one (kept across restarts).
 */
export async function startEndpointProcess(options: { secrets: readonly string[]; port?: number; path?: string }): Promise<EndpointProcess> {
  let port = options.port ?? 0;
  let secrets = [...options.secrets];
  let child: ChildProcess | null = null;
  const launch = async () => {
    const spawned = spawn(process.execPath, ['--no-warnings', SERVER], {
      env: { PATH: process.env.PATH, PORT: String(port), SECRETS: secrets.join(',') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = spawned;
    port = await new Promise<number>((resolve, reject) => {
      spawned.once('exit', (code) => reject(new Error(`endpoint stand-in exited with ${code}`)));
      spawned.stdout.on('data', (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
    });
  };
  await launch();
  const base = () => `http://127.0.0.1:${port}`;
  const endpoint: EndpointProcess = {
    get port() {
      return port;
    },
    get url() {
      return `${base()}${options.path ?? '/webhook/settle'}`;
    },
    async control(script, otherwise, accepted, paths) {
      const response = await fetch(`${base()}/_control`, { method: 'POST', body: JSON.stringify({ script, otherwise, secrets: accepted, paths }) });
      if (response.status !== 204) throw new Error(`endpoint control answered ${response.status}`);
      if (accepted) secrets = [...accepted];
    },
    async received() {
      return (await (await fetch(`${base()}/_received`)).json()) as ReceivedDelivery[];
    },
    async stats() {
      return (await (await fetch(`${base()}/_stats`)).json()) as { received: number; answered: number };
    },
    async stop(signal = 'SIGKILL') {
      const running = child;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.removeAllListeners('exit');
        running.once('exit', () => resolve());
        running.kill(signal);
      });
      child = null;
    },
    async start() {
      await waitUntil('the endpoint port to be free', 10_000, async () => {
        try {
          await launch();
          return true;
        } catch {
          return undefined;
        }
      });
    },
  };
  return endpoint;
}
