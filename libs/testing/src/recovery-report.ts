import type pg from 'pg';
import { WaitTimedOutError } from '../../../scripts/ops/clients.js';

/** What {@link recoveryReport} reads: a running stack's database, worker health endpoints and logs. */
export interface RecoveryReportSource {
  db: pg.Pool;
  /** The workers' `GET .../metrics` URLs: their readiness is at `/health/ready` beside it. */
  metricsUrls: Readonly<Record<string, string>>;
  logs(app: string): string;
  /** Apps whose process has exited, with its exit code or signal. */
  exited(): ReadonlyArray<{ app: string; code: number | null; signal: string | null }>;
}

/** Most warning lines quoted per app. */
const LOG_LINES = 8;

/**
 * Where one transaction's recovery stands in a running stack, as text for a failed wait's
 * message: the apps that exited, the sweeper's watch of the reference (due time against now, milliseconds), the
 * sweeper's partition claims, the verifier's record of the reference, each outbox's backlog,
 * each worker's readiness (its consumer's phase and partitions) and the last warnings each
 * worker logged. A test that waits on the sweeper's timers appends it when the wait times out,
 * so a failure in CI says which stage held the transaction.
 *
 * Never throws: a part it cannot read says why instead.
 */
export async function recoveryReport(stack: RecoveryReportSource, reference: string): Promise<string> {
  const now = Date.now();
  const exited = stack.exited().map((e) => `${e.app} (${e.signal ?? `code ${e.code}`})`);
  const lines = [`Where ${reference} stands (now ${new Date(now).toISOString()}):`, `apps exited: ${exited.join(', ') || 'none'}`];
  const part = async (label: string, read: () => Promise<string>) => {
    lines.push(`${label}: ${await read().catch((error: unknown) => `unreadable (${error instanceof Error ? error.message : String(error)})`)}`);
  };
  await part('sweeper watch', async () => {
    const { rows } = await stack.db.query<{
      partition: number;
      status: string;
      completed: boolean;
      webhook_seen: boolean;
      due_at: string | null;
      last_activity_at: string;
      checks: number;
    }>('SELECT partition, status, completed, webhook_seen, due_at, last_activity_at, checks FROM sweeper.watch_state WHERE reference = $1', [reference]);
    const row = rows[0];
    if (!row) return 'none (the sweeper has not folded any activity of it)';
    const due = row.due_at === null ? 'not armed' : `due ${Number(row.due_at) - now} ms from now`;
    return `partition ${row.partition}, ${row.status}, ${due}, last activity ${now - Number(row.last_activity_at)} ms ago, completed ${row.completed}, webhook seen ${row.webhook_seen}, checks ${row.checks}`;
  });
  await part('sweeper claims', async () => {
    const { rows } = await stack.db.query<{ partition: number; owner: string; epoch: number; claimed_at: Date }>(
      'SELECT partition, owner, epoch, claimed_at FROM sweeper.partition_owners ORDER BY partition',
    );
    return rows.map((r) => `${r.partition}@${r.epoch} by ${r.owner} at ${r.claimed_at.toISOString()}`).join('; ') || 'none';
  });
  await part('verifier', async () => {
    const { rows } = await stack.db.query<{ status: string }>('SELECT status FROM verifier.transactions WHERE reference = $1', [reference]);
    return rows[0] ? `status ${rows[0].status}` : 'no transaction';
  });
  await part('outbox backlogs', async () => {
    const counts: string[] = [];
    for (const schema of ['ingestion', 'sweeper', 'verifier', 'dispatcher']) {
      const { rows } = await stack.db.query<{ n: number; age_ms: number | null }>(
        `SELECT count(*)::int AS n, (extract(epoch FROM clock_timestamp() - min(created_at)) * 1000)::int AS age_ms FROM ${schema}.outbox`,
      );
      counts.push(`${schema} ${rows[0]?.n ?? 0}${rows[0]?.age_ms ? ` (oldest ${rows[0].age_ms} ms)` : ''}`);
    }
    return counts.join(', ');
  });
  for (const [app, url] of Object.entries(stack.metricsUrls)) {
    await part(`${app} readiness`, async () => {
      const answer = await fetch(url.replace(/\/metrics$/, '/health/ready'), { signal: AbortSignal.timeout(2_000) });
      // terminus's answer: `details` holds every check, a consumer's with its phase and partitions.
      type Check = { status: string; state?: string; partitions?: number; message?: string };
      const { details = {} } = (await answer.json()) as { details?: Record<string, Check> };
      const checks = Object.entries(details).map(([key, check]) => {
        const partitions = check.partitions === undefined ? '' : `, ${check.partitions} partitions`;
        const consumer = check.state === undefined ? '' : ` (${check.state}${partitions})`;
        return `${key} ${check.status}${consumer}${check.message === undefined ? '' : `: ${check.message}`}`;
      });
      return `${answer.status}: ${checks.join('; ')}`;
    });
    const warnings = stack
      .logs(app)
      .split('\n')
      .filter((line) => /"level":(4|5|6)0/.test(line))
      .slice(-LOG_LINES);
    lines.push(`${app} last warnings: ${warnings.length === 0 ? 'none' : `\n  ${warnings.map((line) => line.slice(0, 400)).join('\n  ')}`}`);
  }
  return lines.join('\n');
}

/**
 * `waitUntil`'s failure with the {@link recoveryReport} of `reference` appended.
 *
 * @throws the wait's error, its message extended, when it timed out; anything else as it came.
 */
export async function withRecoveryReport<T>(stack: RecoveryReportSource, reference: string, wait: Promise<T>): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    if (!(error instanceof WaitTimedOutError)) throw error;
    error.message = `${error.message}\n${await recoveryReport(stack, reference)}`;
    throw error;
  }
}
