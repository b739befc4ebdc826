/**
 * The audit view as it runs under `LEDGER_STORE=kurrentdb`, on stores that run here: the
 * AuditTrail contract with `ProjectedAuditLog` fed by the `AuditProjection` (over the in-memory
 * ledger and over the PostgreSQL ledger), the same answers as `PostgresAuditLog` for the same
 * recorded actions, and the projection's checkpoint (replays and restarts write nothing twice).
 * The KurrentDB run is audit-projection-kurrentdb.int.spec.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  ADMIN_STREAM_CATEGORY,
  adminActionStream,
  ChainVerifier,
  InMemoryLedger,
  LEDGER_MIGRATIONS,
  PostgresLedger,
  verifyLedger,
  type LedgerStore,
} from '@settle/ledger';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditProjection } from '../src/audit/audit-projection.js';
import type { AdminActionRequest, AuditQuery } from '../src/audit/audit-trail.port.js';
import { LedgerAuditTrail, StoreScanAuditLog, type AuditLog } from '../src/audit/ledger-audit-trail.js';
import { PostgresAuditLog } from '../src/audit/postgres-audit-log.js';
import { ProjectedAuditLog } from '../src/audit/projected-audit-log.js';
import { ConsoleError } from '../src/errors.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { auditTrailContract } from './audit-trail.contract.js';
import { startProjectedAudit, waitForProjection, type ProjectedAudit } from './projected-audit.js';

const silent = pino({ level: 'silent' });

/** One database per use: the console's read model of the in-memory run, the PostgreSQL ledger's run, the projection's own tests. */
const databases: Array<{ pool: Pool; drop: () => Promise<void> }> = [];
const running: ProjectedAudit[] = [];
let memoryPool: Pool;
let ledgerPool: Pool;
let projectionPool: Pool;
/** The PostgreSQL ledger's run: one projection, shared by the contract and the comparison (each test has actors of its own). */
let ledgerAudit: ProjectedAudit;

async function database(prefix: string, withLedger: boolean): Promise<Pool> {
  const created = await createTestDatabase(prefix);
  const pool = createPool(created.url, 4);
  databases.push({ pool, drop: created.drop });
  if (withLedger) await migrateSchema(pool, LEDGER_MIGRATIONS);
  await migrateSchema(pool, CONSOLE_MIGRATIONS);
  return pool;
}

beforeAll(async () => {
  memoryPool = await database('settle_console_projected_mem', false);
  ledgerPool = await database('settle_console_projected_pg', true);
  projectionPool = await database('settle_console_projection', false);
  ledgerAudit = startProjectedAudit(new PostgresLedger(ledgerPool), ledgerPool);
  running.push(ledgerAudit);
});

afterAll(async () => {
  await Promise.all(running.map((audit) => audit.projection.stop()));
  for (const { pool, drop } of databases) {
    await pool.end();
    await drop();
  }
});

let memory: { store: InMemoryLedger; audit: ProjectedAudit } | null = null;

auditTrailContract('projected from the in-memory ledger (ProjectedAuditLog)', async () => {
  if (!memory) {
    const store = new InMemoryLedger();
    memory = { store, audit: startProjectedAudit(store, memoryPool) };
    running.push(memory.audit);
  }
  const { store } = memory;
  return {
    store,
    log: memory.audit.caughtUpLog,
    verifyChains: async () => {
      const verifier = new ChainVerifier({ checkGlobal: true });
      const events = await store.readAll(0, 10_000);
      expect(events.length).toBeGreaterThan(0);
      expect(events.map((event) => verifier.check(event)).filter((broken) => broken !== null)).toEqual([]);
    },
  };
});

auditTrailContract('projected from the PostgreSQL ledger (ProjectedAuditLog)', async () => {
  const store = new PostgresLedger(ledgerPool);
  return {
    store,
    log: ledgerAudit.caughtUpLog,
    verifyChains: async () => {
      const verification = await verifyLedger(store);
      expect(verification.broken).toBeNull();
      expect(verification.checked).toBeGreaterThan(0);
    },
  };
});

const actorOf = (role: 'operator' | 'admin' = 'operator') => ({ email: `ops-${randomUUID().slice(0, 8)}@example.com`, role });
const reconcileOf = (actor: AdminActionRequest['actor'], reference: string, parameters?: Record<string, unknown>): AdminActionRequest => ({
  actor,
  action: 'transaction.reconcile',
  target: { kind: 'transaction', id: reference },
  ...(parameters ? { parameters } : {}),
});

/** Every page of a query, following `nextBefore`, as the pages came. */
async function allPages(log: AuditLog, query: AuditQuery): Promise<Array<Awaited<ReturnType<AuditLog['list']>>>> {
  const pages: Array<Awaited<ReturnType<AuditLog['list']>>> = [];
  for (let before = query.before; ;) {
    const page = await log.list({ ...query, ...(before === undefined ? {} : { before }) });
    pages.push(page);
    if (page.nextBefore === null) return pages;
    before = page.nextBefore;
  }
}

describe('ProjectedAuditLog answers as PostgresAuditLog does, for the same recorded actions', () => {
  it('gives the same entries, order, cursors and filters', async () => {
    const store = new PostgresLedger(ledgerPool);
    const ops = actorOf('operator');
    const admin = actorOf('admin');
    const reference = `REF-${randomUUID().slice(0, 8)}`;
    const trail = new LedgerAuditTrail(store, new PostgresAuditLog(ledgerPool), silent);
    await trail.run(
      reconcileOf(ops, reference, { waitMs: 250 }),
      async () => ({ state: 'RECOVERING' }),
      (r) => r,
    );
    await expect(trail.run(reconcileOf(admin, reference), () => Promise.reject(new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', 'down')))).rejects.toThrow(
      'down',
    );
    await trail.run({ actor: admin, action: 'user.update', target: { kind: 'user', id: ops.email }, parameters: { role: 'viewer' } }, async () => 'ok');
    await trail.run(reconcileOf(ops, `${reference}-2`), async () => 'ok');
    // An action whose outcome could not be recorded.
    let appends = 0;
    const firstOnly: LedgerStore = {
      append: (streamId, events, expected) => (appends++ === 0 ? store.append(streamId, events, expected) : Promise.reject(new Error('gone'))),
      readStream: (streamId) => store.readStream(streamId),
      readAll: (after, limit) => store.readAll(after, limit),
      subscribeToAll: (after, handler, options) => store.subscribeToAll(after, handler, options),
    };
    await new LedgerAuditTrail(firstOnly, new PostgresAuditLog(ledgerPool), silent).run(reconcileOf(ops, `${reference}-3`), async () => 'ok');
    await ledgerAudit.caughtUp();

    const expected = new PostgresAuditLog(ledgerPool);
    const projected = new ProjectedAuditLog(ledgerPool);
    const queries: AuditQuery[] = [
      { limit: 100 },
      { limit: 3 },
      { limit: 2, actor: ops.email },
      { limit: 1, actor: admin.email },
      { limit: 10, target: { kind: 'transaction', id: reference } },
      { limit: 10, actor: admin.email, target: { kind: 'transaction', id: reference } },
      { limit: 10, target: { kind: 'user', id: ops.email } },
      { limit: 10, actor: 'nobody@example.com' },
    ];
    for (const query of queries) {
      const pages = await allPages(projected, query);
      expect(pages, JSON.stringify(query)).toEqual(await allPages(expected, query));
    }
    const mine = await projected.list({ limit: 10, actor: ops.email });
    expect(mine.items.map((i) => [i.target.id, i.outcome, i.parameters, i.result])).toEqual([
      [`${reference}-3`, null, {}, null],
      [`${reference}-2`, 'succeeded', {}, null],
      [reference, 'succeeded', { waitMs: 250 }, { state: 'RECOVERING' }],
    ]);
    // A cursor from one log pages the other the same way.
    const first = await expected.list({ limit: 1, actor: ops.email });
    expect(await projected.list({ limit: 5, actor: ops.email, before: first.nextBefore! })).toEqual(
      await expected.list({ limit: 5, actor: ops.email, before: first.nextBefore! }),
    );
  });
});

describe('AuditProjection', () => {
  beforeEach(async () => {
    // Each test follows a fresh in-memory ledger (positions from 1) into an empty read model.
    await projectionPool.query('TRUNCATE console.admin_actions, console.projection_checkpoints');
  });

  const countRows = async () => Number((await projectionPool.query<{ n: string }>('SELECT count(*) AS n FROM console.admin_actions')).rows[0]!.n);

  async function recordSome(store: InMemoryLedger, count: number): Promise<void> {
    const trail = new LedgerAuditTrail(store, new StoreScanAuditLog(store), silent);
    for (let i = 0; i < count; i += 1) {
      if (i % 2 === 0)
        await trail.run(
          reconcileOf(actorOf(), `REF-${i}`),
          async () => ({ state: 'RECOVERING' }),
          (r) => r,
        );
      else await expect(trail.run(reconcileOf(actorOf(), `REF-${i}`), () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    }
  }

  it('writes one row per action with its outcome, moves the checkpoint with it, and writes nothing again on a replay', async () => {
    const store = new InMemoryLedger();
    await recordSome(store, 3);
    const projection = new AuditProjection(store, projectionPool, silent);
    const events = await store.readAll(0, 100);
    const outcomes: string[] = [];
    // In order, one at a time, as a subscription hands them over.
    for (const event of events) outcomes.push(await projection.project(event));
    expect(outcomes).toEqual(events.map(() => 'projected'));
    expect(await projection.checkpoint()).toBe(events.at(-1)!.position);
    const once = await new ProjectedAuditLog(projectionPool).list({ limit: 10 });
    expect(once).toEqual(await new StoreScanAuditLog(store).list({ limit: 10 }));
    // A replay of everything (a restart from an older checkpoint, another console instance) changes nothing.
    for (const event of events) expect(await projection.project(event)).toBe('replayed');
    expect(await countRows()).toBe(3);
    expect(await new ProjectedAuditLog(projectionPool).list({ limit: 10 })).toEqual(once);
  });

  it('resumes from its checkpoint after a restart, without a row twice or one missing, and is handed admin events only', async () => {
    const store = new InMemoryLedger();
    const subscribedAfter: number[] = [];
    const handed: string[] = [];
    const watched: LedgerStore = {
      append: (streamId, events, expected) => store.append(streamId, events, expected),
      readStream: (streamId) => store.readStream(streamId),
      readAll: (after, limit) => store.readAll(after, limit),
      subscribeToAll: (after, handler, options) => {
        subscribedAfter.push(after);
        return store.subscribeToAll(
          after,
          async (event) => {
            handed.push(event.streamId);
            await handler(event);
          },
          options,
        );
      },
    };
    await recordSome(store, 2);
    const first = new AuditProjection(watched, projectionPool, silent, { pollIntervalMs: 10 });
    first.start();
    await waitForProjection(store, first);
    await first.stop();
    const checkpoint = await first.checkpoint();
    expect(checkpoint).toBe((await store.readAll(0, 100)).at(-1)!.position);

    // Meanwhile: other streams' events and more admin actions.
    await store.append(
      'transaction-REF-OTHER',
      [{ eventId: randomUUID(), type: 'TransactionSettled', data: {}, metadata: { correlationId: 'c', causationId: 'c' } }],
      'no_stream',
    );
    await recordSome(store, 3);
    const second = new AuditProjection(watched, projectionPool, silent, { pollIntervalMs: 10 });
    second.start();
    await waitForProjection(store, second);
    await second.stop();

    expect(subscribedAfter).toEqual([0, checkpoint]);
    expect(handed.every((streamId) => streamId.startsWith(`${ADMIN_STREAM_CATEGORY}-`))).toBe(true);
    // Every admin event handed once: two per action, five actions.
    expect(handed).toHaveLength(10);
    expect(await countRows()).toBe(5);
    expect(await new ProjectedAuditLog(projectionPool).list({ limit: 10 })).toEqual(await new StoreScanAuditLog(store).list({ limit: 10 }));
  });

  it('leaves out what it cannot project and carries on: a malformed admin event, values PostgreSQL cannot store', async () => {
    const store = new InMemoryLedger();
    await store.append(
      adminActionStream('transaction', 'REF-BAD'),
      [{ eventId: randomUUID(), type: 'AdminActionRequested', data: { nonsense: true }, metadata: { correlationId: 'c', causationId: 'c' } }],
      'any',
    );
    const trail = new LedgerAuditTrail(store, new StoreScanAuditLog(store), silent);
    // The in-memory ledger holds a NUL; PostgreSQL's jsonb does not.
    await trail.run(reconcileOf(actorOf(), 'REF-NUL', { note: 'a\u0000b' }), async () => 'ok');
    const actor = actorOf();
    await trail.run(reconcileOf(actor, 'REF-GOOD'), async () => 'ok');
    const projection = new AuditProjection(store, projectionPool, silent, { pollIntervalMs: 10 });
    projection.start();
    await waitForProjection(store, projection);
    await projection.stop();
    const { items } = await new ProjectedAuditLog(projectionPool).list({ limit: 10 });
    expect(items.map((i) => [i.target.id, i.actor.email, i.outcome])).toEqual([['REF-GOOD', actor.email, 'succeeded']]);
    expect(await projection.checkpoint()).toBe((await store.readAll(0, 100)).at(-1)!.position);
  });

  it('subscribes again from its checkpoint when its subscription fails', async () => {
    const store = new InMemoryLedger();
    await recordSome(store, 1);
    const subscribedAfter: number[] = [];
    const failingOnce: LedgerStore = {
      append: (streamId, events, expected) => store.append(streamId, events, expected),
      readStream: (streamId) => store.readStream(streamId),
      readAll: (after, limit) => store.readAll(after, limit),
      subscribeToAll: (after, handler, options) => {
        subscribedAfter.push(after);
        if (subscribedAfter.length === 1) return { failed: Promise.resolve(new Error('the store went away')), stop: async () => undefined };
        return store.subscribeToAll(after, handler, options);
      },
    };
    const projection = new AuditProjection(failingOnce, projectionPool, silent, { pollIntervalMs: 10, retryDelayMs: 10 });
    projection.start();
    await waitForProjection(store, projection);
    await projection.stop();
    expect(subscribedAfter).toEqual([0, 0]);
    expect(await countRows()).toBe(1);
  });

  it('stops at once while caught up, and a stopped projection handles nothing more', async () => {
    const store = new InMemoryLedger();
    const projection = new AuditProjection(store, projectionPool, silent, { pollIntervalMs: 10 });
    projection.start();
    // Subscribed and polling by now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await projection.stop();
    await recordSome(store, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await countRows()).toBe(0);
    expect(await projection.checkpoint()).toBe(0);
  });
});
