import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../../scripts/ops/clients.js';

// Two levels up from scripts/harness/ (sources) or dist/scripts/harness/ (compiled).
export const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../../../' : '../../../', import.meta.url));

/** A Node process started by the harness (a Settle app, the example customer backend). */
export interface AppProcess {
  app: string;
  pid: number;
  /** Its log so far (JSON lines). */
  logs(): string;
  /** How it ended, or `null` while it runs. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | null;
  /** SIGTERM, then SIGKILL after 10 s; resolves when it exited. */
  stop(): Promise<void>;
  /** Sends a signal (SIGKILL, SIGSTOP, SIGCONT, ...) and returns at once; nothing when it already exited. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the process has exited (at once when it already has). */
  exited(): Promise<void>;
}

/** What to start: `node <script>` in `cwd` (the repository by default), logging to `<dir>/<name>.log`. */
export interface ProcessSpec {
  name: string;
  script: string;
  cwd?: string;
  env: NodeJS.ProcessEnv;
  dir: string;
  /** How long it may take to write its ready file (`SETTLE_READY_FILE`), milliseconds (default 90 000). */
  timeoutMs?: number;
}

/**
 * An app's V8 options as scripts/local/lib.sh gives them: `SETTLE_APP_NODE_OPTIONS`, or for the
 * provider sandbox, which keeps every transaction in memory, `SETTLE_SANDBOX_NODE_OPTIONS`.
 */
export function nodeOptionsOf(app: string): string {
  const apps = process.env.SETTLE_APP_NODE_OPTIONS ?? '';
  return app === 'provider-sandbox' ? (process.env.SETTLE_SANDBOX_NODE_OPTIONS ?? apps) : apps;
}

/**
 * Starts a Node process with `SETTLE_READY_FILE` set and waits for that file, stopping the
 * process again when it does not come up.
 *
 * @throws Error with the end of its log when it exits before being ready, or times out.
 */
export async function spawnProcess(spec: ProcessSpec): Promise<AppProcess> {
  const logPath = join(spec.dir, `${spec.name}.log`);
  const ready = join(spec.dir, `${spec.name}.ready`);
  // A ready file left by an earlier run of the same name (a restart) must not count as ready.
  rmSync(ready, { force: true });
  const out = openSync(logPath, 'a');
  const child: ChildProcess = spawn(process.execPath, [spec.script], {
    ...(spec.cwd ? { cwd: spec.cwd } : {}),
    // The apps' V8 options (scripts/local/lib.sh, SETTLE_APP_NODE_OPTIONS) unless the caller sets its own.
    env: { NODE_OPTIONS: process.env.SETTLE_APP_NODE_OPTIONS ?? '', ...spec.env, SETTLE_READY_FILE: ready },
    stdio: ['ignore', out, out],
  });
  const logs = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const exit = () => (child.exitCode !== null || child.signalCode !== null ? { code: child.exitCode, signal: child.signalCode } : null);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exit()) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
      child.kill('SIGCONT'); // a stopped (SIGSTOP) process handles SIGTERM only once continued
    });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const exited = () => (exit() ? Promise.resolve() : ended);
  const signal = (name: NodeJS.Signals) => {
    if (!exit()) child.kill(name);
  };
  try {
    await waitUntil(`${spec.name} to be ready`, spec.timeoutMs ?? 90_000, async () => {
      if (child.exitCode !== null) throw new Error(`${spec.name} exited with ${child.exitCode}:\n${logs().slice(-3000)}`);
      return existsSync(ready) ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { app: spec.name, pid: child.pid!, logs, exit, stop, signal, exited };
}

/**
 * Starts `<distDir>/apps/<app>/src/main.js` with `env` (logs to `<dir>/<name>.log`, `name` being
 * the app's unless another instance of it needs its own) and waits, at most `timeoutMs`, for its
 * ready file.
 *
 * @param distDir - the build to run (default the repository's `dist/`; another one must lie
 *   inside the repository, where Node finds its `node_modules` and `package.json`).
 * @throws Error with the end of its log when it exits before being ready, or times out.
 */
export async function spawnApp(
  app: string,
  env: NodeJS.ProcessEnv,
  dir: string,
  timeoutMs = 90_000,
  name: string = app,
  distDir: string = join(ROOT, 'dist'),
): Promise<AppProcess> {
  const script = join(distDir, 'apps', app, 'src/main.js');
  if (!existsSync(script)) throw new Error(`${script} is missing: run "npm run build" first`);
  return spawnProcess({ name, script, env, dir, timeoutMs });
}
