import { execFile, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './stack.js';

const run = promisify(execFile);

/** A throwaway PostgreSQL cluster of its own, for tests that stop and restart the database. */
export interface OwnPostgres {
  /** Administrative connection string: superuser `postgres`, database `postgres`, trust auth. */
  url: string;
  port: number;
  /** Stops the server (fast shutdown: sessions are terminated with 57P01) and waits until it is down. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, and waits until it accepts connections. */
  start(): Promise<void>;
  /**
   * Stops the server fast, waits `downMs` milliseconds (default 3 000), starts it again.
   * Resolves once it accepts connections; the outage lasts a little longer than `downMs`.
   */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops it at once (immediate shutdown) and deletes its data. */
  destroy(): Promise<void>;
  /** The server's log, for a failing test's message. */
  log(): string;
}

/** The newest PostgreSQL installed under `/usr/lib/postgresql/<major>/bin` (or `SETTLE_PG_BIN`). */
function binDir(): string {
  if (process.env.SETTLE_PG_BIN) return process.env.SETTLE_PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => /^\d+$/.test(d))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const major = majors.find((m) => existsSync(join(root, m, 'bin', 'initdb')));
  if (!major) throw new Error(`no PostgreSQL server binaries under ${root}/<major>/bin (set SETTLE_PG_BIN)`);
  return join(root, major, 'bin');
}

/** uid and gid of an OS user. @throws Error when the user does not exist. */
function osUser(name: string): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, name], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`tests run as root need the "${name}" OS user to run PostgreSQL (initdb refuses root)`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Starts a PostgreSQL cluster of its own from the machine's server binaries: `initdb` in a
 * temporary folder, trust authentication, listening on a free loopback port (and a Unix
 * socket in that folder), autovacuum on. PostgreSQL refuses to run as root, so when the tests
 * run as root the cluster belongs to, and runs as, the `postgres` OS user (`runuser`).
 *
 * `fsync` is off: the test stops the server, never the machine, and a clean or fast shutdown
 * writes everything out, so nothing a test relies on is lost; it only spares the shared disk.
 *
 * @throws Error when the binaries or the `postgres` OS user are missing, or the server does not start.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'settle-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  if (asRoot) {
    const { uid, gid } = osUser('postgres');
    chownSync(dir, uid, gid);
  }
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const exec = async (tool: string, args: string[]): Promise<void> => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    try {
      await run(file, argv, { cwd: dir, timeout: 120_000 });
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(`${tool} ${args.join(' ')} failed: ${e.stderr || e.message}\n${log().slice(-2_000)}`, { cause: error });
    }
  };
  const port = await freePort();
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      '',
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'autovacuum = on',
      'max_connections = 200',
      'fsync = off',
      '',
    ].join('\n'),
  );
  let running = false;
  // A test process that dies without destroy() must not leave a server behind.
  const killOnExit = () => {
    if (!running) return;
    const args = ['-D', data, '-m', 'immediate', 'stop'];
    if (asRoot) spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args]);
    else spawnSync(join(bin, 'pg_ctl'), args);
  };
  process.once('exit', killOnExit);

  const server: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    log,
    async start() {
      await exec('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop() {
      if (!running) return;
      await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    async restart(options = {}) {
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, options.downMs ?? 3_000));
      await server.start();
    },
    async destroy() {
      if (running) await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      running = false;
      process.removeListener('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
