/**
 * The kit's README works for someone who has only the package: its Quick start, copied as it
 * stands (the first `js` block of "Quick start", saved as `server.mjs`), runs against the packed
 * tarball (installed in examples/customer-backend, as a customer installs it) and a real
 * PostgreSQL; the README's own `npx settle-receiver send-sample` command (its port replaced by the
 * one the test chose) delivers a signed event to it; the handler's table gets its row and the
 * access is applied. The "CommonJS projects" section holds too: `require()` of the entry points,
 * and TypeScript resolving them with `"module": "commonjs"` (`node10` resolution). And the
 * README links nowhere into Settle's repository.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@settle/testing';
import { newSecret, waitFor } from './support/delivery.js';
import { createTestDatabase } from './support/infra.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(join(root, 'libs/receiver/README.md'), 'utf8');
const installed = join(root, 'examples/customer-backend/node_modules');
const dir = mkdtempSync(join(tmpdir(), 'settle-receiver-readme-'));

/** The fenced code blocks of a README section (from its `## ` heading to the next), with their language. */
function codeBlocks(heading: string): Array<{ lang: string; code: string }> {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `the README has a "${heading}" section`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 4);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

beforeAll(() => {
  // Builds and packs the kit, installs the example from the tarball (as a customer would).
  execFileSync('bash', ['scripts/local/receiver-kit.sh'], { cwd: root, stdio: 'inherit' });
  // A folder of its own that sees the installed packages, as a customer's project would.
  symlinkSync(installed, join(dir, 'node_modules'), 'dir');
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's Quick start, copied as it stands", () => {
  let server: ChildProcess | undefined;
  let pool: pg.Pool | undefined;
  let drop: (() => Promise<void>) | undefined;

  afterAll(async () => {
    server?.kill('SIGTERM');
    await pool?.end();
    await drop?.();
  });

  it("runs on the packed tarball, and the README's send-sample command gets a 200, the handler's row and the access", async () => {
    const blocks = codeBlocks('Quick start');
    const program = blocks.find((b) => b.lang === 'js');
    const send = blocks.flatMap((b) => b.code.split('\n')).find((line) => line.startsWith('npx settle-receiver send-sample'));
    expect(program, 'a js block').toBeDefined();
    expect(send, 'an npx settle-receiver send-sample line').toBeDefined();
    writeFileSync(join(dir, 'server.mjs'), program!.code);

    const db = await createTestDatabase('settle_receiver_readme');
    drop = db.drop;
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const secret = newSecret();
    const port = await freePort();
    let output = '';
    server = spawn(process.execPath, ['server.mjs'], {
      cwd: dir,
      env: { PATH: process.env.PATH, DATABASE_URL: db.url, SETTLE_WEBHOOK_SECRETS: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The program's last line prints once its tables exist and it listens.
    await waitFor(
      () => {
        if (server!.exitCode !== null) throw new Error(`server.mjs exited with ${server!.exitCode}: ${output}`);
        return output.includes('access of user-42: null') ? true : undefined;
      },
      'the Quick start to run',
      20_000,
    );

    const command = send!.replace(':4000', `:${port}`);
    const sent = execFileSync('bash', ['-c', command], {
      cwd: dir,
      env: { PATH: process.env.PATH, SETTLE_WEBHOOK_SECRETS: secret, npm_config_offline: 'true' },
      encoding: 'utf8',
    });
    const answer = JSON.parse(sent.trim().split('\n').at(-1)!) as { sent: { event_id: string; expires_at: string }; status: number; answer: string };
    expect(answer).toMatchObject({ status: 200, sent: { event: 'subscription_started', user_id: 'user-42', entitlement: 'pro-monthly' } });
    expect(JSON.parse(answer.answer)).toEqual({ received: true });

    // The access at once; the handler's row once the processor ran it.
    const access = await pool.query('SELECT expires_at FROM settle_receiver.access WHERE user_id = $1', ['user-42']);
    expect(access.rows).toEqual([{ expires_at: new Date(answer.sent.expires_at) }]);
    await waitFor(async () => {
      const { rows } = await pool!.query('SELECT event_id FROM welcome_emails');
      return rows.length > 0 ? rows : undefined;
    }, 'the handler to insert its row').then((rows) => expect(rows).toEqual([{ event_id: answer.sent.event_id }]));
  });
});

describe('CommonJS projects, as the README says', () => {
  it('require() loads every entry point (Node 20.19 or later)', () => {
    writeFileSync(
      join(dir, 'check.cjs'),
      [
        "const { createReceiver, sendSampleEvent } = require('@settle/receiver');",
        "const { PostgresReceiverStore } = require('@settle/receiver/postgres');",
        "const { RedisReceiverStore } = require('@settle/receiver/redis');",
        'console.log([createReceiver, sendSampleEvent, PostgresReceiverStore, RedisReceiverStore].map((f) => typeof f).join(" "));',
      ].join('\n'),
    );
    expect(execFileSync(process.execPath, ['check.cjs'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('function function function function');
  });

  it('TypeScript compiled to CommonJS (node10 resolution) finds the subpath entry points and their types', () => {
    writeFileSync(
      join(dir, 'check.ts'),
      [
        "import { createReceiver, type Receiver } from '@settle/receiver';",
        "import { PostgresReceiverStore } from '@settle/receiver/postgres';",
        "import { SettleReceiverModule } from '@settle/receiver/nestjs';",
        'export const used: [typeof createReceiver, typeof PostgresReceiverStore, typeof SettleReceiverModule] = [createReceiver, PostgresReceiverStore, SettleReceiverModule];',
        'export type R = Receiver;',
      ].join('\n'),
    );
    // A NestJS CLI project's settings; skipLibCheck: pg's and Nest's own types are not installed here.
    const compilerOptions = { strict: true, skipLibCheck: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2022', types: [], noEmit: true };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts'] }));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const compile = () => execFileSync(process.execPath, [tsc, '-p', '.'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    expect(compile).not.toThrow();
  });
});

describe('the README stands alone in the package', () => {
  it("links nowhere into Settle's repository", () => {
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.filter((link) => !link.startsWith('#') && !/^https:\/\//.test(link))).toEqual([]);
    expect(readme).not.toMatch(/docs\/[a-z-]+\.md|examples\/customer-backend|npm run bench|\.\.\//);
  });
});
