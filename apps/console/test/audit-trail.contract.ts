/**
 * The contract of the console's AuditTrail over a ledger store and its audit log (in memory in
 * audit-trail.unit.spec.ts, PostgreSQL in audit-trail.int.spec.ts): an action's request is
 * recorded before it runs and its outcome after; a failure is recorded with its code and
 * rethrown; an action whose request cannot be recorded does not run; the log pages newest
 * first and filters by actor and target; the ledger's hash chains still hold.
 */
import { randomUUID } from 'node:crypto';
import { ProblemError } from '@settle/platform';
import type { LedgerStore } from '@settle/ledger';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AdminActionRequest } from '../src/audit/audit-trail.port.js';
import { LedgerAuditTrail, type AuditLog } from '../src/audit/ledger-audit-trail.js';
import { ConsoleError } from '../src/errors.js';

/** What a contract run needs: the store the trail appends to, the log it reads back with, and a check of the store's hash chains. */
export interface AuditTrailUnderTest {
  store: LedgerStore;
  log: AuditLog;
  /** Resolves when every hash chain of the store holds; rejects (or fails an expectation) otherwise. */
  verifyChains(): Promise<void>;
}

const silent = pino({ level: 'silent' });

/** A unique actor per test, so tests sharing one store (PostgreSQL's ledger is append-only) do not see each other's actions. */
const actorOf = (role: 'operator' | 'admin' = 'operator') => ({ email: `ops-${randomUUID().slice(0, 8)}@example.com`, role });

const reconcileOf = (actor: AdminActionRequest['actor'], reference: string): AdminActionRequest => ({
  actor,
  action: 'transaction.reconcile',
  target: { kind: 'transaction', id: reference },
});

/** Registers the contract's tests for one store and log. */
export function auditTrailContract(name: string, make: () => Promise<AuditTrailUnderTest>): void {
  describe(`AuditTrail contract: ${name}`, () => {
    it('records the request, runs the action, then records its success with the summarized result', async () => {
      const { store, log } = await make();
      const trail = new LedgerAuditTrail(store, log, silent);
      const actor = actorOf();
      const reference = `REF-${randomUUID().slice(0, 8)}`;
      const seenDuringAction: number[] = [];
      const answer = await trail.run(
        { ...reconcileOf(actor, reference), parameters: { waitMs: 0 } },
        async () => {
          // The request is in the ledger before the action runs.
          seenDuringAction.push((await trail.list({ limit: 10, actor: actor.email })).items.length);
          return { reference, state: 'RECOVERING' };
        },
        (result) => ({ state: result.state }),
      );
      expect(answer).toEqual({ reference, state: 'RECOVERING' });
      expect(seenDuringAction).toEqual([1]);
      const { items, nextBefore } = await trail.list({ limit: 10, actor: actor.email });
      expect(nextBefore).toBeNull();
      expect(items).toEqual([
        {
          actionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          action: 'transaction.reconcile',
          actor,
          target: { kind: 'transaction', id: reference },
          parameters: { waitMs: 0 },
          requestedAt: expect.any(String),
          outcome: 'succeeded',
          errorCode: null,
          result: { state: 'RECOVERING' },
          completedAt: expect.any(String),
          position: expect.any(Number),
        },
      ]);
      expect(Date.parse(items[0]!.completedAt!)).toBeGreaterThanOrEqual(Date.parse(items[0]!.requestedAt));
    });

    it("records a failing action as failed with the error's code, and rethrows the error", async () => {
      const { store, log } = await make();
      const trail = new LedgerAuditTrail(store, log, silent);
      const actor = actorOf();
      const unavailable = new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', 'ingestion did not answer');
      await expect(trail.run(reconcileOf(actor, 'REF-FAILS'), () => Promise.reject(unavailable))).rejects.toBe(unavailable);
      // An edge error (a ProblemError) keeps its code too; anything else is INTERNAL.
      const problem = new ProblemError(404, 'CONSOLE.TRANSACTION_NOT_FOUND', 'Transaction not found');
      await expect(trail.run(reconcileOf(actor, 'REF-MISSING'), () => Promise.reject(problem))).rejects.toBe(problem);
      await expect(trail.run(reconcileOf(actor, 'REF-BUG'), () => Promise.reject(new TypeError('boom')))).rejects.toThrow('boom');
      const { items } = await trail.list({ limit: 10, actor: actor.email });
      expect(items.map((i) => [i.target.id, i.outcome, i.errorCode, i.result])).toEqual([
        ['REF-BUG', 'failed', 'INTERNAL', null],
        ['REF-MISSING', 'failed', 'CONSOLE.TRANSACTION_NOT_FOUND', null],
        ['REF-FAILS', 'failed', 'CONSOLE.INGESTION_UNAVAILABLE', null],
      ]);
    });

    it('does not run an action whose request cannot be recorded, and throws CONSOLE.AUDIT_UNAVAILABLE', async () => {
      const { store, log } = await make();
      const broken: LedgerStore = {
        append: () => Promise.reject(new Error('connection refused')),
        readStream: (streamId) => store.readStream(streamId),
        readAll: (after, limit) => store.readAll(after, limit),
        subscribeToAll: (after, handler, options) => store.subscribeToAll(after, handler, options),
      };
      const trail = new LedgerAuditTrail(broken, log, silent);
      const actor = actorOf();
      let ran = false;
      const refused = trail.run(reconcileOf(actor, 'REF-UNRECORDED'), async () => {
        ran = true;
      });
      await expect(refused).rejects.toBeInstanceOf(ConsoleError);
      await expect(refused).rejects.toMatchObject({ code: 'CONSOLE.AUDIT_UNAVAILABLE', kind: 'unavailable' });
      expect(ran).toBe(false);
      expect((await trail.list({ limit: 10, actor: actor.email })).items).toEqual([]);
    });

    it('refuses an action whose request the ledger cannot store as given as invalid input (400), not as the trail being unavailable, and does not run it', async () => {
      const { store, log } = await make();
      // The shape of PostgreSQL's refusal of a NUL in jsonb (SQLSTATE 22P05, data exception).
      const refusing: LedgerStore = {
        append: () => Promise.reject(Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' })),
        readStream: (streamId) => store.readStream(streamId),
        readAll: (after, limit) => store.readAll(after, limit),
        subscribeToAll: (after, handler, options) => store.subscribeToAll(after, handler, options),
      };
      const trail = new LedgerAuditTrail(refusing, log, silent);
      let ran = false;
      const refused = trail.run(reconcileOf(actorOf(), 'REF-INVALID'), async () => {
        ran = true;
      });
      await expect(refused).rejects.toBeInstanceOf(ProblemError);
      await expect(refused).rejects.toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
      expect(ran).toBe(false);
    });

    it('shows an action whose outcome could not be recorded as without an outcome', async () => {
      const { store, log } = await make();
      let appends = 0;
      const firstOnly: LedgerStore = {
        append: (streamId, events, expected) => (appends++ === 0 ? store.append(streamId, events, expected) : Promise.reject(new Error('gone'))),
        readStream: (streamId) => store.readStream(streamId),
        readAll: (after, limit) => store.readAll(after, limit),
        subscribeToAll: (after, handler, options) => store.subscribeToAll(after, handler, options),
      };
      const actor = actorOf();
      const trail = new LedgerAuditTrail(firstOnly, log, silent);
      expect(await trail.run(reconcileOf(actor, 'REF-HALF'), async () => 'done')).toBe('done');
      const { items } = await trail.list({ limit: 10, actor: actor.email });
      expect(items.map((i) => [i.outcome, i.completedAt])).toEqual([[null, null]]);
    });

    it('pages newest first with `before`, and filters by actor and by target', async () => {
      const { store, log } = await make();
      const trail = new LedgerAuditTrail(store, log, silent);
      const ops = actorOf('operator');
      const admin = actorOf('admin');
      const shared = `REF-${randomUUID().slice(0, 8)}`;
      const done = async () => ({ state: 'RECOVERING' });
      await trail.run(reconcileOf(ops, `${shared}-1`), done);
      await trail.run(reconcileOf(admin, shared), done);
      await trail.run(reconcileOf(ops, shared), done);
      await trail.run(reconcileOf(ops, `${shared}-2`), done);
      await trail.run({ actor: admin, action: 'user.update', target: { kind: 'user', id: ops.email }, parameters: { role: 'viewer' } }, done);

      const first = await trail.list({ limit: 2, actor: ops.email });
      expect(first.items.map((i) => i.target.id)).toEqual([`${shared}-2`, shared]);
      expect(first.nextBefore).toBe(first.items[1]!.position);
      const second = await trail.list({ limit: 2, actor: ops.email, before: first.nextBefore! });
      expect(second.items.map((i) => i.target.id)).toEqual([`${shared}-1`]);
      expect(second.nextBefore).toBeNull();
      expect(first.items[0]!.position).toBeGreaterThan(first.items[1]!.position);
      expect(first.items[1]!.position).toBeGreaterThan(second.items[0]!.position);

      // A page that ends exactly at the last entry says so.
      const exact = await trail.list({ limit: 3, actor: ops.email });
      expect(exact.items).toHaveLength(3);
      expect(exact.nextBefore).toBeNull();

      const onShared = await trail.list({ limit: 10, target: { kind: 'transaction', id: shared } });
      expect(onShared.items.map((i) => i.actor.email)).toEqual([ops.email, admin.email]);
      const onUser = await trail.list({ limit: 10, target: { kind: 'user', id: ops.email } });
      expect(onUser.items.map((i) => [i.action, i.actor.email, i.parameters])).toEqual([['user.update', admin.email, { role: 'viewer' }]]);
      const both = await trail.list({ limit: 10, actor: admin.email, target: { kind: 'transaction', id: shared } });
      expect(both.items.map((i) => i.action)).toEqual(['transaction.reconcile']);
      expect((await trail.list({ limit: 10, actor: 'nobody@example.com' })).items).toEqual([]);
    });

    it("keeps the ledger's hash chains whole after audit appends", async () => {
      const { store, log, verifyChains } = await make();
      const trail = new LedgerAuditTrail(store, log, silent);
      const actor = actorOf();
      await trail.run(reconcileOf(actor, 'REF-CHAIN'), async () => 'ok');
      await expect(trail.run(reconcileOf(actor, 'REF-CHAIN'), () => Promise.reject(new Error('no')))).rejects.toThrow('no');
      expect(await store.readStream('admin-transaction-REF-CHAIN')).not.toHaveLength(0);
      await verifyChains();
    });
  });
}
