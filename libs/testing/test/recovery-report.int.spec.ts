import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { recoveryReport, withRecoveryReport, type RecoveryReportSource } from '../src/recovery-report.js';

/** A database answering the report's statements from canned rows, and failing the ones named in `failing`. */
function fakeDb(rows: Record<string, unknown[]>, failing: string[] = []): pg.Pool {
  return {
    query: async (text: string) => {
      const table = /FROM (\w+\.\w+)/.exec(text)?.[1] ?? '';
      if (failing.includes(table)) throw new Error(`relation "${table}" does not exist`);
      return { rows: rows[table] ?? [] };
    },
  } as unknown as pg.Pool;
}

function source(
  db: pg.Pool,
  logs: Record<string, string> = {},
  exited: Array<{ app: string; code: number | null; signal: string | null }> = [],
): RecoveryReportSource {
  // Port 9 (discard) on loopback: nothing listens, the readiness part says so.
  return { db, metricsUrls: { sweeper: 'http://127.0.0.1:9/metrics' }, logs: (app) => logs[app] ?? '', exited: () => exited };
}

/** A worker's readiness as terminus answers it: the sweeper's consumer has crashed. */
const READINESS = {
  status: 'error',
  details: {
    postgres: { status: 'up' },
    'consumer:e2e-1-sweeper': { status: 'down', state: 'crashed', partitions: 0, message: 'crashed: broker gone' },
  },
};

let worker: Server;
let workerMetricsUrl: string;

beforeAll(async () => {
  worker = createServer((request, response) => {
    response.writeHead(request.url === '/health/ready' ? 503 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(READINESS));
  });
  await new Promise<void>((resolve) => worker.listen(0, '127.0.0.1', resolve));
  workerMetricsUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}/metrics`;
});

afterAll(() => new Promise<void>((resolve) => worker.close(() => resolve())));

describe('recoveryReport', () => {
  it("gives each worker's readiness, its consumer's phase and partitions", async () => {
    const report = await recoveryReport({ ...source(fakeDb({})), metricsUrls: { sweeper: workerMetricsUrl } }, 'ref_0');
    expect(report).toContain('sweeper readiness: 503: postgres up; consumer:e2e-1-sweeper down (crashed, 0 partitions): crashed: broker gone');
  });

  it("states the sweeper's watch against now, its claims, the verifier's record, the outboxes and the last warnings", async () => {
    const now = Date.now();
    const db = fakeDb({
      'sweeper.watch_state': [
        {
          partition: 3,
          status: 'PENDING',
          completed: true,
          webhook_seen: false,
          due_at: String(now - 20_000),
          last_activity_at: String(now - 23_000),
          checks: 0,
        },
      ],
      'sweeper.partition_owners': [{ partition: 3, owner: 'host-1', epoch: 2, claimed_at: new Date(now - 60_000) }],
      'verifier.transactions': [{ status: 'PENDING' }],
      'sweeper.outbox': [{ n: 1, age_ms: 19_000 }],
    });
    const logs = { sweeper: ['{"level":30,"msg":"ready"}', '{"level":40,"msg":"sweep failed; retrying"}'].join('\n') };
    const report = await recoveryReport(source(db, logs), 'ref_1');
    expect(report).toContain('apps exited: none');
    expect(report).toMatch(/sweeper watch: partition 3, PENDING, due -2\d{4} ms from now/);
    expect(report).toContain('sweeper claims: 3@2 by host-1');
    expect(report).toContain('verifier: status PENDING');
    expect(report).toContain('sweeper 1 (oldest 19000 ms)');
    expect(report).toContain('sweep failed; retrying');
    expect(report).not.toContain('"msg":"ready"');
    expect(report).toMatch(/sweeper readiness: unreadable/);
  });

  it('says why a part is unreadable, and that a reference has no watch yet', async () => {
    const report = await recoveryReport(source(fakeDb({}, ['verifier.transactions']), {}, [{ app: 'sweeper', code: 1, signal: null }]), 'ref_2');
    expect(report).toContain('apps exited: sweeper (code 1)');
    expect(report).toContain('sweeper watch: none');
    expect(report).toContain('verifier: unreadable (relation "verifier.transactions" does not exist)');
  });
});

describe('withRecoveryReport', () => {
  it("appends the report to a wait's time-out", async () => {
    const wait = waitUntil('ref_3 to settle', 0, async () => undefined, 1);
    await expect(withRecoveryReport(source(fakeDb({})), 'ref_3', wait)).rejects.toThrow(/Timed out after 0 ms waiting for ref_3 to settle\nWhere ref_3 stands/);
  });

  it('passes any other failure on unchanged, and a value through', async () => {
    await expect(withRecoveryReport(source(fakeDb({})), 'ref_4', Promise.reject(new Error('HTTP 500')))).rejects.toThrow(/^HTTP 500$/);
    // Another time-out (a request's own) is not the wait's: no report.
    await expect(withRecoveryReport(source(fakeDb({})), 'ref_4', Promise.reject(new Error('Timed out after 2000 ms')))).rejects.toThrow(
      /^Timed out after 2000 ms$/,
    );
    await expect(withRecoveryReport(source(fakeDb({})), 'ref_4', Promise.resolve(7))).resolves.toBe(7);
  });
});
