import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** A running baseline server (bench/ingest-baseline.ts) in a child process. */
export interface BaselineProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The server's counters (`GET /stats`): received, produced, produceBatches. */
  stats(): Promise<Record<string, number>>;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts the compiled baseline server `main` with `env` and waits (60 s at most) for the
 * `"ready"` line it prints with its port.
 *
 * @throws Error when `main` is missing (not built), or the server exits or is not ready in time.
 */
export async function startBaseline(main: string, env: NodeJS.ProcessEnv): Promise<BaselineProcess> {
  if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build" (scripts/local/bench.sh does)`);
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`baseline not ready after 60 s:\n${stderr}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"ready"'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`baseline exited with ${code}:\n${stderr}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid!,
    child,
    stats: async () => (await (await fetch(`${url}/stats`)).json()) as Record<string, number>,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
