/**
 * A kit of the previous version keeps working, and the new kit, on upgrade, re-applies what the
 * old one stored as ignored and migrates its access rows (README, "Upgrading from 0.2").
 *
 * Proved with the real 0.2.0 kit: built from the repository's history (commit aafc4d3, the last
 * before 0.3), packed, and installed from its tarball as a customer installs it
 * (support/previous-kit.ts). A child process runs it (fixtures/previous-kit.mjs) over a real
 * PostgreSQL and a real Redis: it answers Settle's new payloads (a grant with a `revision`, a
 * `subscription_revoked`) and records the revocation as ignored. Then the kit of this working tree,
 * from its sources, opens the same store: its first processDue applies the revocation by the
 * revision rule (the rows 0.2 wrote carry no revision) and runs its handler once; later deliveries
 * follow the revision rule.
 *
 * Skipped, saying why, only when the history lacks the commit (a shallow clone).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, ENTITLEMENT_EVENT_KINDS, type EntitlementEvent, type ReceiverStore } from '../src/index.js';
import { PostgresReceiverStore } from '../src/postgres-store.js';
import { RedisReceiverStore } from '../src/redis-store.js';
import { delivery, newSecret } from './support/delivery.js';
import { createTestDatabase, deleteKeys, redisUrl, uniquePrefix } from './support/infra.js';
import { hasCommit, installPreviousKit, packPreviousKit } from './support/previous-kit.js';

/** The last commit of kit 0.2.0. */
const PREVIOUS = 'aafc4d3';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/previous-kit.mjs', import.meta.url));
const available = hasCommit(root, PREVIOUS);
if (!available) {
  console.warn(`[upgrade.int.spec] skipped: the git history lacks commit ${PREVIOUS} (a shallow clone?), so the 0.2.0 kit cannot be built`);
}

const secret = newSecret();
const quiet = { info: () => undefined, warn: () => undefined, error: (fields: object, message: string) => console.error(message, fields) };
const BASE = Date.UTC(2031, 0, 1);
/** An expiry `n` days after a fixed date. */
const day = (n: number): string => new Date(BASE + n * 86_400_000).toISOString();
const ENTITLEMENT = 'pro-monthly';

type Payload = Record<string, unknown> & { event_id: string; event: string; user_id: string; expires_at: string };

/** A grant as Settle sends it; without `revision`, as Settle sent it before revisions existed. */
function grant(kind: 'subscription_started' | 'subscription_renewed', user: string, expiresDay: number, revision?: number): Payload {
  return {
    event_id: randomUUID(),
    event: kind,
    entitlement: ENTITLEMENT,
    user_id: user,
    expires_at: day(expiresDay),
    ...(revision === undefined ? {} : { revision }),
    reference: `ref_${randomUUID().slice(0, 8)}`,
    settled_at: day(0),
    access_period: 'P30D',
  };
}

/** A `subscription_revoked`: the payment was refunded, access now ends on `expiresDay`. */
function revoked(user: string, expiresDay: number, revision: number): Payload {
  return {
    event_id: randomUUID(),
    event: 'subscription_revoked',
    entitlement: ENTITLEMENT,
    user_id: user,
    expires_at: day(expiresDay),
    revision,
    reference: `ref_${randomUUID().slice(0, 8)}`,
    reason: 'refunded',
    changed_at: day(1),
  };
}

/** What fixtures/previous-kit.mjs prints. */
interface PreviousKitRun {
  version: string;
  kinds: string[];
  answers: Array<{ event_id: string; status: number; body: unknown }>;
  processed: number;
  stored: Record<string, { state: string; attempts: number } | null>;
  access: Record<string, string | null>;
  runs: Array<{ event_id: string; event: string; attempt: number }>;
  counts: Record<string, number>;
}

/** The access row as the store keeps it, read around the kit: its expiry and revision. */
interface RawAccess {
  expiresAt: string;
  revision: number | null;
  /** PostgreSQL: whether the row has a `revision` column at all (0.2 wrote none). */
  hasRevision?: boolean;
}

/** One store, shared by the 0.2 kit (a child process) and the 0.3 kit (this process). */
interface Harness {
  /** The child's environment naming the store. */
  readonly env: Record<string, string>;
  /** The 0.3 store over the same data (PostgreSQL: migrated, as the README says). */
  open(): Promise<ReceiverStore<unknown>>;
  raw(user: string): Promise<RawAccess | null>;
  close(): Promise<void>;
}

async function postgresHarness(): Promise<Harness> {
  const db = await createTestDatabase('settle_receiver_upgrade');
  const pool = new pg.Pool({ connectionString: db.url, max: 6 });
  return {
    env: { STORE: 'postgres', DATABASE_URL: db.url },
    open: async () => {
      const store = new PostgresReceiverStore(pool);
      await store.migrate();
      return store;
    },
    raw: async (user) => {
      // to_jsonb: the row as it is, whether or not migrate() added the revision column yet.
      const { rows } = await pool.query<{ row: Record<string, unknown> }>(
        'SELECT to_jsonb(a) AS row FROM settle_receiver.access a WHERE user_id = $1 AND entitlement = $2',
        [user, ENTITLEMENT],
      );
      const row = rows[0]?.row;
      if (!row) return null;
      return {
        expiresAt: new Date(row.expires_at as string).toISOString(),
        revision: (row.revision as number | null | undefined) ?? null,
        hasRevision: 'revision' in row,
      };
    },
    close: async () => {
      await pool.end();
      await db.drop();
    },
  };
}

async function redisHarness(): Promise<Harness> {
  const prefix = uniquePrefix('upgrade');
  const redis = new Redis(redisUrl);
  return {
    env: { STORE: 'redis', REDIS_URL: redisUrl, KEY_PREFIX: prefix },
    // The machine's Redis keeps no append-only file: the persistence check would refuse every record.
    open: async () => new RedisReceiverStore(redis, { keyPrefix: prefix, persistence: 'off' }),
    raw: async (user) => {
      // `<expiry ms>` (written by 0.2, or by an event without a revision) or `<expiry ms>:<revision>`.
      const value = await redis.hget(`${prefix}access`, JSON.stringify([user, ENTITLEMENT]));
      if (value === null) return null;
      const [expires, revision] = value.split(':');
      return { expiresAt: new Date(Number(expires)).toISOString(), revision: revision === undefined ? null : Number(revision) };
    },
    close: async () => {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    },
  };
}

describe.skipIf(!available)(`upgrading from the 0.2.0 kit (built from ${PREVIOUS}, installed from its tarball)`, () => {
  let kitDir: string;
  let removeKit: (() => void) | undefined;

  beforeAll(() => {
    const tarball = packPreviousKit(root, PREVIOUS);
    const kit = installPreviousKit(root, tarball);
    kitDir = kit.dir;
    removeKit = kit.remove;
    // Next to its node_modules, so that `@settle/receiver` is the installed 0.2.0 kit.
    copyFileSync(fixture, join(kitDir, 'previous-kit.mjs'));
  }, 120_000);

  afterAll(() => removeKit?.());

  /** Runs the 0.2.0 kit over the store: it receives `events`, runs its processor once, and reports. */
  async function previousKit(harness: Harness, events: Payload[]): Promise<PreviousKitRun> {
    const { stdout } = await promisify(execFile)(process.execPath, ['previous-kit.mjs'], {
      cwd: kitDir,
      env: { PATH: process.env.PATH, ...harness.env, SECRET: secret, EVENTS: JSON.stringify(events) },
      timeout: 30_000,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as PreviousKitRun;
  }

  describe.each([
    ['PostgreSQL', postgresHarness],
    ['Redis', redisHarness],
  ] as const)('%s store', (_name, makeHarness) => {
    let harness: Harness;
    // A: started before revisions, then refunded (revision 1), which 0.2 cannot apply.
    const userA = `user-a-${randomUUID().slice(0, 8)}`;
    const startedA = grant('subscription_started', userA, 60);
    const revokedA = revoked(userA, 5, 1);
    // B: started before revisions, renewed with Settle's new payload (a revision 0.2 does not know).
    const userB = `user-b-${randomUUID().slice(0, 8)}`;
    const startedB = grant('subscription_started', userB, 20);
    const renewedB = grant('subscription_renewed', userB, 50, 1);
    // C: refunded (revision 1, ignored by 0.2), then renewed (revision 2, applied by 0.2).
    const userC = `user-c-${randomUUID().slice(0, 8)}`;
    const revokedC = revoked(userC, 5, 1);
    const renewedC = grant('subscription_renewed', userC, 90, 2);

    /** The handler runs of the 0.3 kit, in order. */
    const runs: Array<{ eventId: string; attempt: number }> = [];
    const newReceiver = (store: ReceiverStore<unknown>) =>
      createReceiver({
        secrets: [secret],
        store,
        handlers: Object.fromEntries(
          ENTITLEMENT_EVENT_KINDS.map((kind) => [
            kind,
            (event: EntitlementEvent, { attempt }: { attempt: number }) => void runs.push({ eventId: event.event_id, attempt }),
          ]),
        ),
        logger: quiet,
      });
    let receiver: ReturnType<typeof newReceiver>;

    beforeAll(async () => {
      harness = await makeHarness();
    });

    afterAll(() => harness?.close());

    it("0.2.0 answers Settle's new payloads 200: grants applied by the later expiry, a revision field ignored, a revocation recorded as ignored", async () => {
      const run = await previousKit(harness, [startedA, revokedA, startedB, renewedB, revokedC, renewedC]);

      expect([run.version, run.kinds]).toEqual(['0.2.0', ['subscription_started', 'subscription_renewed']]);
      expect(run.answers).toEqual([
        { event_id: startedA.event_id, status: 200, body: { received: true } },
        { event_id: revokedA.event_id, status: 200, body: { received: true, ignored: true } },
        { event_id: startedB.event_id, status: 200, body: { received: true } },
        { event_id: renewedB.event_id, status: 200, body: { received: true } },
        { event_id: revokedC.event_id, status: 200, body: { received: true, ignored: true } },
        { event_id: renewedC.event_id, status: 200, body: { received: true } },
      ]);
      expect(run.stored).toEqual({
        [startedA.event_id]: { state: 'processed', attempts: 1 },
        [revokedA.event_id]: { state: 'ignored', attempts: 0 },
        [startedB.event_id]: { state: 'processed', attempts: 1 },
        [renewedB.event_id]: { state: 'processed', attempts: 1 },
        [revokedC.event_id]: { state: 'ignored', attempts: 0 },
        [renewedC.event_id]: { state: 'processed', attempts: 1 },
      });
      // The refund did not shorten A's access: 0.2 does not know revocations.
      expect(run.access).toEqual({
        [`${userA} ${ENTITLEMENT}`]: day(60),
        [`${userB} ${ENTITLEMENT}`]: day(50),
        [`${userC} ${ENTITLEMENT}`]: day(90),
      });
      expect(run.runs.map((r) => [r.event_id, r.attempt]).sort()).toEqual([startedA, startedB, renewedB, renewedC].map((e) => [e.event_id, 1]).sort());
      expect(run.counts).toEqual({ pending: 0, processing: 0, processed: 4, failed: 0, ignored: 2 });
      // The rows 0.2 wrote: no revision (PostgreSQL: not even the column).
      const legacy = await harness.raw(userA);
      expect(legacy).toMatchObject({ expiresAt: day(60), revision: null });
      if (legacy?.hasRevision !== undefined) expect(legacy.hasRevision).toBe(false);
    });

    it('0.3 on the same store: its first processDue applies the revocation 0.2 ignored, by the revision rule, and runs its handler once', async () => {
      const store = await harness.open();
      // migrate() added the column; the legacy row keeps its expiry, without a revision.
      expect(await harness.raw(userA)).toMatchObject({ expiresAt: day(60), revision: null });
      receiver = newReceiver(store);
      expect((await receiver.find(revokedA.event_id))?.state).toBe('ignored');
      expect((await receiver.accessExpiry(userA, ENTITLEMENT))?.toISOString()).toBe(day(60));

      expect(await receiver.processDue()).toBe(2);

      // A revision beats the legacy row: the refund takes A's access back to day 5.
      expect((await receiver.accessExpiry(userA, ENTITLEMENT))?.toISOString()).toBe(day(5));
      expect(await harness.raw(userA)).toMatchObject({ expiresAt: day(5), revision: 1 });
      expect(await receiver.find(revokedA.event_id)).toMatchObject({ state: 'processed', attempts: 1, lastError: null });
      // Only the adopted events ran; what 0.2 processed is not run again.
      expect(runs.filter((r) => r.eventId === revokedA.event_id)).toEqual([{ eventId: revokedA.event_id, attempt: 1 }]);
      expect(runs.map((r) => r.eventId).sort()).toEqual([revokedA.event_id, revokedC.event_id].sort());
      // B's row keeps its expiry (nothing of B was ignored), and gets the revision of the event 0.2 set it from.
      expect(await harness.raw(userB)).toMatchObject({ expiresAt: day(50), revision: 1 });
      expect(await receiver.counts()).toEqual({ pending: 0, processing: 0, processed: 6, failed: 0, ignored: 0 });

      // Idempotent: another 0.3 process starting on the store adopts nothing and runs nothing again.
      const restarted = newReceiver(await harness.open());
      expect(await restarted.processDue()).toBe(0);
      expect(runs).toHaveLength(2);
      expect((await restarted.accessExpiry(userA, ENTITLEMENT))?.toISOString()).toBe(day(5));
    });

    it('0.3 after the upgrade: a stale renewal (a lower revision, a later expiry) cannot undo the refund; a higher revision sets the access', async () => {
      const deliver = async (payload: Payload) => {
        const { body, headers } = delivery(payload, [secret]);
        return receiver.receive(body, headers);
      };
      const staleA = grant('subscription_renewed', userA, 90, 0);
      expect(await deliver(staleA)).toMatchObject({ status: 200, body: { received: true } });
      expect((await receiver.accessExpiry(userA, ENTITLEMENT))?.toISOString()).toBe(day(5));
      expect(await harness.raw(userA)).toMatchObject({ expiresAt: day(5), revision: 1 });

      const renewedA = grant('subscription_renewed', userA, 40, 2);
      expect(await deliver(renewedA)).toMatchObject({ status: 200, body: { received: true } });
      expect((await receiver.accessExpiry(userA, ENTITLEMENT))?.toISOString()).toBe(day(40));
      expect(await harness.raw(userA)).toMatchObject({ expiresAt: day(40), revision: 2 });

      expect(await receiver.processDue()).toBe(2);
      expect(
        runs
          .slice(2)
          .map((r) => r.eventId)
          .sort(),
      ).toEqual([staleA.event_id, renewedA.event_id].sort());
      expect(runs.filter((r) => r.eventId === revokedA.event_id)).toHaveLength(1);
    });

    it('0.3 keeps what 0.2 applied from events that carried a revision: a renewal after the refund, and a stale grant after the upgrade', async () => {
      // C's stream: revoked (revision 1, ignored by 0.2), then renewed (revision 2, applied by 0.2,
      // which stored day 90 without its revision). The highest revision is the renewal: day 90.
      expect
        .soft((await receiver.accessExpiry(userC, ENTITLEMENT))?.toISOString(), 'C: the renewal (revision 2) outranks the adopted refund (revision 1)')
        .toBe(day(90));
      // B's access was set by revision 1; a stale grant of revision 0 must not replace it.
      const staleB = grant('subscription_renewed', userB, 80, 0);
      const { body, headers } = delivery(staleB, [secret]);
      expect(await receiver.receive(body, headers)).toMatchObject({ status: 200, body: { received: true } });
      expect.soft((await receiver.accessExpiry(userB, ENTITLEMENT))?.toISOString(), 'B: revision 0 does not replace what revision 1 set').toBe(day(50));
    });
  });
});
