/**
 * scripts/local/supervise.sh, the local stack's supervisor (docs/reliability.md, "Supervision on
 * this machine"): an app that exits on its own is started again after a back-off and the exit is
 * logged; SIGTERM stops the app gracefully and the supervisor with it, without a restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../../scripts/ops/clients.js';

const SUPERVISE = fileURLToPath(new URL('../../scripts/local/supervise.sh', import.meta.url));

/** A stand-in app: exits with status 3 on its first `failures` runs, then stays up until SIGTERM, which it logs. */
const APP = `
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
const [counter, failures] = [process.argv[2], Number(process.argv[3])];
const runs = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) + 1 : 1;
writeFileSync(counter, String(runs));
if (runs <= failures) { console.log('run ' + runs + ': failing'); process.exit(3); }
if (process.env.SETTLE_READY_FILE) writeFileSync(process.env.SETTLE_READY_FILE, 'ready');
console.log('run ' + runs + ': up');
process.on('SIGTERM', () => { console.log('run ' + runs + ': SIGTERM, stopping'); process.exit(0); });
setInterval(() => undefined, 1000);
`;

let dir: string;
let supervisor: ChildProcess | undefined;

function start(failures: number): { output: () => string; counter: string; ready: string } {
  dir = mkdtempSync(join(tmpdir(), 'settle-supervise-'));
  const script = join(dir, 'app.mjs');
  const counter = join(dir, 'runs');
  const ready = join(dir, 'app.ready');
  writeFileSync(script, APP);
  let output = '';
  supervisor = spawn('bash', [SUPERVISE, 'stand-in', process.execPath, script, counter, String(failures)], {
    env: { ...process.env, SETTLE_READY_FILE: ready, SETTLE_RESTART_INITIAL_DELAY_S: '1', SETTLE_RESTART_MAX_DELAY_S: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, so that the clean-up ends the app with its supervisor.
    detached: true,
  });
  supervisor.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  supervisor.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { output: () => output, counter, ready };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));

afterEach(async () => {
  if (supervisor && supervisor.exitCode === null) {
    // The whole group: a SIGKILLed supervisor cannot stop its app, which would outlive the test.
    process.kill(-supervisor.pid!, 'SIGKILL');
    await exited(supervisor);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the local supervisor', () => {
  it('starts an app that exited on its own again, with a growing back-off, and logs each exit', async () => {
    const run = start(2);
    await waitUntil('the third run to be up', 20_000, async () => (run.output().includes('run 3: up') ? true : undefined));
    expect(readFileSync(run.counter, 'utf8')).toBe('3');
    const warnings = run
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; supervised: string; msg: string })
      .filter((line) => line.level === 40);
    expect(warnings.map((w) => w.msg)).toEqual(['stand-in exited with status 3; restart 1 in 1 s', 'stand-in exited with status 3; restart 2 in 2 s']);
    expect(warnings.every((w) => w.supervised === 'stand-in')).toBe(true);
    expect(existsSync(run.ready)).toBe(true);
  });

  it('stops the app with SIGTERM and exits without restarting it', async () => {
    const run = start(0);
    await waitUntil('the app to be up', 10_000, async () => (run.output().includes('run 1: up') ? true : undefined));
    supervisor!.kill('SIGTERM');
    expect(await exited(supervisor!)).toBe(0);
    expect(run.output()).toContain('run 1: SIGTERM, stopping');
    expect(run.output()).not.toContain('restart');
    expect(readFileSync(run.counter, 'utf8')).toBe('1');
  });
});
