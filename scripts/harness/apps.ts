import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../clients.js';

// Two levels up from scripts/harness/ (sources) or dist/scripts/harness/ (compiled).
const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../../' : '../../', import.meta.url));

/** One Settle app running as its own process from the compiled `dist/`. */
export interface AppProcess {
  app: string;
  pid: number;
  /** Its log so far (JSON lines). */
  logs(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves when it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `dist/apps/<app>/src/main.js` with `env` (logs to `<dir>/<app>.log`) and waits, at most
 * `timeoutMs`, for its ready file.
 *
 * @throws Error with the end of its log when it exits before being ready, or times out.
 */
export async function spawnApp(app: string, env: NodeJS.ProcessEnv, dir: string, timeoutMs = 90_000): Promise<AppProcess> {
  const main = join(ROOT, 'dist/apps', app, 'src/main.js');
  if (!existsSync(main)) throw new Error(`dist/apps/${app} is missing: run "npm run build" first`);
  const logPath = join(dir, `${app}.log`);
  const ready = join(dir, `${app}.ready`);
  const out = openSync(logPath, 'a');
  const child: ChildProcess = spawn(process.execPath, [main], { env: { ...env, SETTLE_READY_FILE: ready }, stdio: ['ignore', out, out] });
  const logs = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  try {
    await waitUntil(`${app} to be ready`, timeoutMs, async () => {
      if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${logs().slice(-3000)}`);
      return existsSync(ready) ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { app, pid: child.pid!, logs, stop };
}
