import { randomBytes } from 'node:crypto';
import type { SandboxBehaviour } from '../ops/clients.js';
import type { Scenario } from '../demo/scenarios.js';
import type { StackApp } from '@settle/testing';
import { createKafka, topicNames } from '@settle/messaging';
import type { Admin } from 'kafkajs';
import { createLogger } from '@settle/platform';
import type { ChaosBed } from './bed.js';
import type { CommandChannel } from './commands.js';
import type { FrontMode } from './customer-front.js';
import { firstProgressSince } from './collect.js';
import type { Expectations, InvariantResult } from './invariants.js';
import { paystackWebhookBody, postPaystackWebhook, type Load, type PostedWebhook } from './load.js';

/** What a fault sees while it runs. */
export interface FaultContext {
  /** The scenario's load, running. */
  load: Load;
  /** Long run: longer outages (a minute's blackhole, a session time-out of the verifier's). */
  long: boolean;
  /** Writes a progress line (the runner's log). */
  log: (line: string) => void;
  /** Records a webhook the fault posted itself (those answered 200 must never be lost). */
  posted: (webhook: PostedWebhook) => void;
  /** Adds a row the fault checked itself to the scenario's invariant table; a failed one fails the scenario. */
  check: (result: InvariantResult) => void;
  /** The load's commands over Kafka, when the fault asked for them ({@link Fault.commandShare}). */
  commands: CommandChannel | null;
}

/** One chaos scenario's fault. */
export interface Fault {
  id: string;
  /** What is injected, for the report. */
  injected: string;
  /** Prepares the bed before the load starts (extra instances). */
  before?(bed: ChaosBed): Promise<void>;
  /**
   * Injects the fault once, mid-load; resolves when the fault has ended, with the moment it
   * ended (epoch milliseconds) when that was earlier (a restart issued, then waited for).
   */
  inject(bed: ChaosBed, context: FaultContext): Promise<number | void>;
  /** What recovery is measured by: a settlement (default), or a delivery for faults downstream of the ledger. */
  recoveryBy?: 'settlement' | 'delivery';
  /** Puts the bed back as it was, after the invariants were checked. */
  after?(bed: ChaosBed): Promise<void>;
  /**
   * The load runs until the fault has ended instead of for the scenario's count (at most 20
   * times it), at this rate (default the run's): a fault with several steps meets load at each.
   */
  sustainLoad?: { ratePerSecond?: number };
  /** Alters the sandbox behaviour of some checkouts (a provider storm). */
  behaviourOf?: (index: number, outcome: Scenario, count: number) => SandboxBehaviour;
  expect?: Expectations;
  /** May run in the mixed run (instant faults that leave the bed as they found it). */
  mixable: boolean;
  /** Injected once even in a long run: the fault spans the load by itself (a storm over its middle 40 %). */
  once?: boolean;
  /**
   * The share of the load's checkouts (0 to 1, evenly spread) registered and completed with
   * commands on the checkout commands topic instead of the checkout API; their registrations and
   * the commands' results get invariants of their own (`checkRegistrations`, `checkCommandResults`).
   */
  commandShare?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `n` commands, in words. */
const commandsText = (n: number) => `${n} command${n === 1 ? '' : 's'}`;

/** SIGKILL of an app in the middle of work, a moment down, then a restart. */
function killAndRestart(app: StackApp): Fault {
  return {
    id: `kill-${app}`,
    injected: `SIGKILL of ${app} mid-load, restarted 1 s later`,
    mixable: true,
    ...(app === 'dispatcher' ? { recoveryBy: 'delivery' as const } : {}),
    async inject(bed) {
      await bed.stack.control.kill(app, 'SIGKILL');
      await sleep(1_000);
      // The fault ends when the app is started again; how long it takes to be back is the recovery.
      const restartedAt = Date.now();
      await bed.stack.control.restart(app);
      return restartedAt;
    },
  };
}

/** Where ingestion's loop of the checkout commands topic stands, per partition, read from outside while it is frozen or dead. */
interface CommandsProgress {
  /** The next offset whose command is not answered yet, as its batch's transaction stored it (`ingestion.checkout_command_offsets`). */
  stored: Map<number, bigint>;
  /** The consumer group's committed offset (where a restarted member fetches from). */
  committed: Map<number, bigint>;
  /** The partition's high watermark. */
  high: Map<number, bigint>;
  /** Whether a batch's transaction is open: it holds its lock on `ingestion.checkout_command_offsets` (`SELECT ... FOR UPDATE`). */
  batchOpen: boolean;
}

/** Reads {@link CommandsProgress} of the stack's ingestion group. */
async function commandsProgress(bed: ChaosBed, admin: Admin): Promise<CommandsProgress> {
  const topic = topicNames(bed.stack.topicPrefix).checkoutCommands;
  const [db, locks, committed, high] = await Promise.all([
    bed.stack.db.query<{ partition: number; next_offset: string }>(
      'SELECT partition, next_offset::text FROM ingestion.checkout_command_offsets WHERE topic = $1',
      [topic],
    ),
    bed.stack.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks l
        WHERE l.granted AND l.pid <> pg_backend_pid() AND l.relation = 'ingestion.checkout_command_offsets'::regclass
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    ),
    admin.fetchOffsets({ groupId: `${bed.stack.topicPrefix}-ingestion`, topics: [topic] }),
    admin.fetchTopicOffsets(topic),
  ]);
  return {
    stored: new Map(db.rows.map((r) => [r.partition, BigInt(r.next_offset)])),
    // No committed offset yet (-1): the group starts from the beginning.
    committed: new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(Math.max(0, Number(p.offset)))])),
    high: new Map(high.map((p) => [p.partition, BigInt(p.high)])),
    batchOpen: locks.rows[0]!.n > 0,
  };
}

/** Commands answered (their effects and results committed) whose offsets the group has not committed: a restarted member gets them again. */
function answeredNotCommitted(p: CommandsProgress): number {
  let n = 0n;
  for (const [partition, stored] of p.stored) {
    const committed = p.committed.get(partition) ?? 0n;
    if (stored > committed) n += stored - committed;
  }
  return Number(n);
}

/** Commands on the topic not answered yet. */
function unanswered(p: CommandsProgress): number {
  let n = 0n;
  for (const [partition, high] of p.high) n += high - (p.stored.get(partition) ?? 0n);
  return Number(n);
}

/** How long `kill-ingestion-commands` looks for a moment inside a batch, milliseconds. */
const MID_BATCH_SEARCH_MS = 4_000;

/**
 * Half the load's checkouts registered and completed with commands on the checkout commands
 * topic, and ingestion SIGKILLed in the middle of a batch of them, then restarted 1 s later.
 * To land inside a batch rather than between two, ingestion is frozen (SIGSTOP) and looked at
 * from outside, then killed there or let go (SIGCONT) for 5 to 25 ms and looked at again:
 * first only between a batch's commit and its offsets' commit (a partition's stored next offset
 * ahead of the group's committed one: after the restart the batch is delivered again, its
 * commands already answered, and must not be answered twice); after half of
 * {@link MID_BATCH_SEARCH_MS} also inside a batch's transaction (rolled back by the kill: the
 * batch is handled after the restart). After the kill, the commands answered but not committed
 * (redelivered) and those not answered yet are counted from the database and the broker; the
 * scenario's own row fails when the kill landed in neither.
 */
const killIngestionMidCommands: Fault = {
  id: 'kill-ingestion-commands',
  injected:
    'half the checkouts registered and completed over the checkout commands topic; SIGKILL of ingestion mid-batch of commands (between a batch commit and its offset commit when found), restarted 1 s later',
  mixable: false,
  commandShare: 0.5,
  async inject(bed, { check, log, commands }) {
    const admin = createKafka('settle-chaos-admin', bed.stack.kafkaBrokers, createLogger('settle-chaos-admin', 'fatal')).admin();
    await admin.connect();
    try {
      // Commands flowing: some answered already.
      const flowing = Date.now() + 30_000;
      while ((commands?.sent.length ?? 0) < 4 && Date.now() < flowing) await sleep(50);
      const started = Date.now();
      let looks = 0;
      let where: 'after its commit, before its offset commit' | 'inside its transaction' | null = null;
      while (where === null && Date.now() - started < MID_BATCH_SEARCH_MS) {
        bed.stack.control.signal('ingestion', 'SIGSTOP');
        looks += 1;
        try {
          const seen = await commandsProgress(bed, admin);
          if (answeredNotCommitted(seen) > 0) where = 'after its commit, before its offset commit';
          else if (seen.batchOpen && Date.now() - started > MID_BATCH_SEARCH_MS / 2) where = 'inside its transaction';
        } finally {
          if (where === null) bed.stack.control.signal('ingestion', 'SIGCONT');
        }
        if (where === null) await sleep(5 + Math.random() * 20);
      }
      await bed.stack.control.kill('ingestion', 'SIGKILL');
      const killedAt = Date.now();
      // What the broker still had to receive from the dead process (an offset commit on the wire) has arrived by now.
      await sleep(500);
      const after = await commandsProgress(bed, admin);
      const redelivered = answeredNotCommitted(after);
      const waiting = unanswered(after);
      const midBatch = redelivered > 0 || where === 'inside its transaction';
      check({
        name: 'ingestion killed mid-batch of commands',
        ok: midBatch,
        detail:
          `${where === null ? `no batch found in ${MID_BATCH_SEARCH_MS / 1000} s, killed anyway` : `killed ${where}`} (${looks} looks, ${killedAt - started} ms); ` +
          `${commandsText(redelivered)} answered but not committed (delivered again), ${waiting} not answered yet, of ${commands?.sent.length ?? 0} sent so far`,
      });
      await sleep(Math.max(0, 1_000 - (Date.now() - killedAt)));
      const restartedAt = Date.now();
      await bed.stack.control.restart('ingestion');
      // The restarted member gets the partitions once the dead one's session expired: when does it answer again?
      const answeredBefore = [...after.stored.values()].reduce((n, o) => n + o, 0n);
      const resumeBy = Date.now() + 30_000;
      let resumedAfter: number | null = null;
      while (resumedAfter === null && Date.now() < resumeBy) {
        const now = await commandsProgress(bed, admin);
        if ([...now.stored.values()].reduce((n, o) => n + o, 0n) > answeredBefore) resumedAfter = Date.now() - restartedAt;
        else await sleep(200);
      }
      log(
        `ingestion killed ${where ?? 'between batches'}: ${commandsText(redelivered)} to deliver again, ${waiting} unanswered; ` +
          `commands answered again ${resumedAfter === null ? 'not within 30 s' : `${(resumedAfter / 1000).toFixed(1)} s`} after the restart`,
      );
      return restartedAt;
    } finally {
      await admin.disconnect();
    }
  },
};

/** How long a recovery may take after an app's restart, milliseconds (the recovery invariant's target). */
const RESUME_TARGET_MS = 10_000;

/** Polls until an instance's process has exited, at most `timeoutMs`; its exit, or `null` when it still runs. */
async function exitWithin(bed: ChaosBed, instance: string, timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exit = bed.stack.control.exit(instance);
    if (exit || Date.now() > deadline) return exit;
    await sleep(50);
  }
}

/** Polls until a settlement (or delivery) happens at or after `since`; how long after it, milliseconds, or `null` past `timeoutMs`. */
async function progressWithin(bed: ChaosBed, by: 'settlement' | 'delivery', since: number, timeoutMs: number): Promise<number | null> {
  const deadline = since + timeoutMs;
  for (;;) {
    const at = await firstProgressSince(bed, by, since).catch(() => null);
    if (at) return at.getTime() - since;
    if (Date.now() > deadline) return null;
    await sleep(200);
  }
}

/** The apps `sigterm-each` stops in turn, in pipeline order (the sandbox stands for the provider, outside Settle). */
const GRACEFUL_ORDER: readonly StackApp[] = ['ingestion', 'verifier', 'ledger-projector', 'sweeper', 'dispatcher'];

/**
 * SIGTERM of each app in turn under a sustained load: each must exit by itself, with status 0,
 * within its shutdown bound (`SHUTDOWN_TIMEOUT_MS`, with 2 s for the process to end); one that
 * does not is SIGKILLed and the scenario fails. Each is restarted at once, and the next app is
 * stopped only once work resumed: a settlement (for the dispatcher, a delivery) committed within
 * 10 s of the restarted app being ready (its boot time is reported beside).
 */
const sigtermEach: Fault = {
  id: 'sigterm-each',
  injected:
    'SIGTERM of ingestion, verifier, ledger-projector, sweeper and dispatcher in turn under load; each exits 0 within its bound, is restarted, work resumes',
  mixable: false,
  sustainLoad: {},
  async inject(bed, { check, log }) {
    const exits: string[] = [];
    const resumed: string[] = [];
    let exitsOk = true;
    let resumedOk = true;
    let restartedAt = Date.now();
    for (const app of GRACEFUL_ORDER) {
      const sent = Date.now();
      bed.stack.control.signal(app, 'SIGTERM');
      const exit = await exitWithin(bed, app, bed.shutdownTimeoutMs + 2_000);
      const tookS = ((Date.now() - sent) / 1000).toFixed(1);
      if (!exit) {
        exitsOk = false;
        exits.push(`${app} still running after ${tookS} s (SIGKILLed)`);
        await bed.stack.control.kill(app, 'SIGKILL');
      } else if (exit.code !== 0) {
        exitsOk = false;
        exits.push(`${app} ended ${exit.code === null ? `by ${exit.signal}` : `with status ${exit.code}`} after ${tookS} s`);
      } else {
        exits.push(`${app} 0 in ${tookS} s`);
      }
      restartedAt = Date.now();
      await bed.stack.control.restart(app);
      // Its boot is the machine's to take (reported); work must then resume within the target.
      const readyAt = Date.now();
      const by = app === 'dispatcher' ? 'delivery' : 'settlement';
      const after = await progressWithin(bed, by, readyAt, RESUME_TARGET_MS);
      if (after === null) resumedOk = false;
      const boot = `ready ${((readyAt - restartedAt) / 1000).toFixed(1)} s`;
      resumed.push(`${app} ${boot}, ${after === null ? `no ${by} within ${RESUME_TARGET_MS / 1000} s` : `${by} ${(after / 1000).toFixed(1)} s later`}`);
      log(`${app}: SIGTERM -> ${exits.at(-1)}; restarted, ${resumed.at(-1)}`);
    }
    check({ name: `each app exited 0 on SIGTERM within ${bed.shutdownTimeoutMs / 1000} s`, ok: exitsOk, detail: exits.join('; ') });
    check({ name: `work resumed within ${RESUME_TARGET_MS / 1000} s of each restart`, ok: resumedOk, detail: resumed.join('; ') });
    return restartedAt;
  },
};

/** Extra instances a fault added, to remove after it. */
const added: string[] = [];

const rebalance: Fault = {
  id: 'rebalance',
  injected: 'three verifiers and two projectors in their groups; one verifier SIGKILLed and one added mid-load',
  mixable: false,
  async before(bed) {
    const { control } = bed.stack;
    added.push(...(await Promise.all([control.addInstance('verifier'), control.addInstance('verifier'), control.addInstance('ledger-projector')])));
  },
  async inject(bed) {
    const victim = added.shift()!;
    await bed.stack.control.remove(victim, 'SIGKILL');
    added.push(await bed.stack.control.addInstance('verifier'));
  },
  async after(bed) {
    for (const instance of added.splice(0)) await bed.stack.control.remove(instance);
  },
};

const brokerKill: Fault = {
  id: 'broker-kill',
  injected: 'SIGKILL of the Kafka broker mid-load, restarted 3 s later',
  mixable: true,
  async inject(bed, { log }) {
    await bed.broker.stop('SIGKILL');
    await sleep(3_000);
    // Infrastructure's own boot is not Settle's recovery: the fault ends once the broker listens again.
    const restartedAt = Date.now();
    await bed.broker.start();
    log(`broker listening again ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after its restart`);
  },
};

const registryRestart: Fault = {
  id: 'registry-restart',
  injected: 'SIGKILL of the schema registry mid-load, restarted 3 s later; then the projector restarted (a fresh schema cache)',
  mixable: true,
  async inject(bed) {
    await bed.registry.stop('SIGKILL');
    await sleep(3_000);
    // The fault ends once the registry answers again; the projector's restart is part of the recovery.
    await bed.registry.start();
    const backAt = Date.now();
    await bed.stack.control.kill('ledger-projector', 'SIGTERM');
    await bed.stack.control.restart('ledger-projector');
    return backAt;
  },
};

const postgresRestart: Fault = {
  id: 'postgres-restart',
  injected: 'PostgreSQL stopped (fast shutdown) mid-load, started again 3 s later',
  mixable: true,
  async inject(bed) {
    await bed.postgres.restart({ downMs: 3_000 });
  },
};

/** The checkouts in the middle 40 % of the load meet a provider answering `mode` four times first. */
function providerStorm(mode: '502' | '504'): Fault {
  return {
    id: `provider-${mode}-storm`,
    injected: `provider answers ${mode} four times to every checkout of the middle 40 % of the load (ends when all were served)`,
    mixable: false,
    once: true,
    behaviourOf: (i, outcome, count) =>
      i >= count * 0.3 && i < count * 0.7 && !outcome.behaviour.failures ? { ...outcome.behaviour, failures: { mode, times: 4 } } : outcome.behaviour,
    async inject(bed, { load }) {
      // The storm ends once the provider served every failure it was told to (at most a minute).
      await waitStarted(load, 0.7);
      const stormy = load.checkouts.filter((c) => c.behaviour.failures?.mode === mode && c.behaviour.failures.times === 4);
      const deadline = Date.now() + 60_000;
      for (let open = stormy; open.length > 0 && Date.now() < deadline;) {
        await sleep(500);
        const served = await Promise.all(open.map(async (c) => (await bed.sandbox.inspect(c.reference).catch(() => null))?.body.failuresServed ?? 0));
        open = open.filter((_, i) => served[i]! < 4);
      }
    },
  };
}

/** Waits until the given share of the load's checkouts started (bounded by a minute). */
async function waitStarted(load: Load, share: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (load.started() < share * load.total && Date.now() < deadline) await sleep(100);
}

const providerSlow: Fault = {
  id: 'provider-slow',
  injected: 'every provider answer 1.5 s late (the time-out is 1 s) for 5 s',
  mixable: true,
  async inject(bed) {
    bed.providerProxy.setMode({ kind: 'latency', ms: 1_500 }, { cutOpen: true });
    await sleep(5_000);
    bed.providerProxy.setMode({ kind: 'pass' });
  },
};

function providerBlackhole(shortMs: number): Fault {
  return {
    id: 'provider-blackhole',
    injected: `the provider blackholed (connections accepted, never answered) for ${shortMs / 1000} s (a minute in the long run)`,
    mixable: true,
    async inject(bed, { long }) {
      bed.providerProxy.setMode({ kind: 'blackhole' });
      await sleep(long ? 60_000 : shortMs);
      bed.providerProxy.setMode({ kind: 'pass' });
    },
  };
}

const webhookFlood: Fault = {
  id: 'webhook-flood',
  injected:
    'for each checkout so far (at most the first 200 registered): its webhook 5 times at once, 3 spoofed, 2 variants in reverse order; then all of them again later',
  mixable: true,
  async inject(bed, { load, posted }) {
    const secret = bed.stack.secrets.paystackSecret;
    const url = bed.stack.ingestionUrl;
    const targets = load.checkouts.filter((c) => c.registered).slice(0, 200);
    const send = async (body: string, key: string) => posted(await postPaystackWebhook(url, body, key));
    for (const c of targets) {
      const body = paystackWebhookBody(c);
      await Promise.all([
        ...Array.from({ length: 5 }, () => send(body, secret)),
        ...Array.from({ length: 3 }, () => send(paystackWebhookBody(c, 9), randomBytes(32).toString('hex'))),
      ]);
      await send(paystackWebhookBody(c, 2), secret);
      await send(paystackWebhookBody(c, 1), secret);
    }
    await sleep(2_000);
    // Delayed: the same webhooks again, after most of them settled.
    for (const c of targets) await send(paystackWebhookBody(c), secret);
  },
};

function customerFault(id: string, injected: string, mode: FrontMode, ms: number, after?: (bed: ChaosBed) => Promise<void>): Fault {
  return {
    id,
    injected,
    mixable: true,
    recoveryBy: 'delivery',
    async inject(bed) {
      bed.customerFront.setMode(mode);
      await sleep(ms);
      bed.customerFront.setMode({ kind: 'pass' });
      await after?.(bed);
    },
  };
}

/** Re-enables the customer's endpoint, as its operator does after a 410 disabled it. */
async function enableEndpoint(bed: ChaosBed): Promise<void> {
  const answer = await bed.stack.dispatcher.setEnabled(bed.customer.endpointId, true);
  if (answer.status !== 200) throw new Error(`re-enabling the endpoint answered ${answer.status}`);
}

/**
 * A zombie member: one of two instances of a consumer SIGSTOPped for longer than its
 * consumer-group session time-out (6 s by default), so the group moves its partitions to the
 * other, then SIGCONT. The woken one still holds what it was doing (a batch decided, a delivery
 * attempt in flight) and must act for nothing it lost: its writes are fenced (the sweeper's
 * partition epochs, the verifier's optimistic state and inbox, the ledger's expected revisions,
 * the dispatcher's delivery leases), and the invariants count every doubled outcome or grant.
 */
function pauseOneOfTwo(app: 'sweeper' | 'verifier' | 'ledger-projector' | 'dispatcher'): Fault {
  return {
    id: `sigstop-${app}`,
    injected: `SIGSTOP of one of two ${app === 'dispatcher' ? 'dispatchers' : `${app}s`} for 8 s (its session time-out is 6 s), then SIGCONT`,
    mixable: false,
    ...(app === 'dispatcher' ? { recoveryBy: 'delivery' as const } : {}),
    async before(bed) {
      added.push(await bed.stack.control.addInstance(app));
    },
    async inject(bed) {
      bed.stack.control.signal(app, 'SIGSTOP');
      await sleep(bed.sessionTimeoutMs + 2_000);
      bed.stack.control.signal(app, 'SIGCONT');
    },
    async after(bed) {
      for (const instance of added.splice(0)) await bed.stack.control.remove(instance);
    },
  };
}

/** Provider transactions of the reconciler's window: 1,000 pages of the Paystack list. */
const RECONCILER_WINDOW = 100_000;

/**
 * The reconciler killed mid-run (docs/reconciliation.md, "Resumable, idempotent"): a reconciliation
 * run over a window of {@link RECONCILER_WINDOW} sandbox transactions Settle never heard of (about
 * one in a thousand paid: unknown to Settle, an exception each; the rest declined: counted), its
 * verifier SIGKILLed once the run has read ten pages, then restarted. The run must resume from its
 * stored cursor once its lease expired, end completed with every transaction compared exactly once,
 * and no exception raised twice, in the verifier's table or in the ledger.
 */
const reconcilerKill: Fault = {
  id: 'reconciler-kill',
  injected: `SIGKILL of the verifier mid-way through a reconciliation run over ${RECONCILER_WINDOW} provider transactions, restarted 1 s later`,
  mixable: false,
  async inject(bed, { check, log }) {
    const prefix = `ref_chaos_rc_${randomBytes(3).toString('hex')}_`;
    const until = Date.now() - 3_600_000;
    const from = until - 3_600_000;
    const seeded = await fetch(`${bed.sandbox.baseUrl}/_sandbox/paystack/transactions/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        count: RECONCILER_WINDOW,
        from: new Date(from).toISOString(),
        until: new Date(until).toISOString(),
        reference_prefix: prefix,
        outcomes: { declined: 999, success: 1 },
      }),
    });
    if (seeded.status !== 201) throw new Error(`the sandbox refused the bulk seed: ${seeded.status} ${await seeded.text()}`);
    const requested = await fetch(`${bed.stack.ingestionUrl}/v1/admin/reconciliation-runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bed.stack.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'paystack', since: new Date(from).toISOString(), until: new Date(until).toISOString(), requested_by: 'chaos' }),
    });
    if (requested.status !== 202) throw new Error(`the run was refused: ${requested.status} ${await requested.text()}`);
    const { run_id: runId } = (await requested.json()) as { run_id: string };
    const runRow = async () =>
      (
        await bed.stack.db.query<{ status: string; pages: number; counts: Record<string, number> }>(
          'SELECT status, pages::int AS pages, counts FROM verifier.reconciliation_runs WHERE run_id = $1',
          [runId],
        )
      ).rows[0];
    const deadline = Date.now() + 60_000;
    let before = await runRow();
    while ((before?.pages ?? 0) < 10 && before?.status !== 'completed' && Date.now() < deadline) {
      await sleep(50);
      before = await runRow();
    }
    await bed.stack.control.kill('verifier', 'SIGKILL');
    log(`verifier SIGKILLed at page ${before?.pages ?? 0} of run ${runId} (${before?.status ?? 'not claimed'})`);
    check({
      name: 'the verifier was killed mid-run',
      ok: before?.status === 'running',
      detail: `at page ${before?.pages ?? 0}, run ${before?.status ?? 'not claimed'}`,
    });
    await sleep(1_000);
    const restartedAt = Date.now();
    await bed.stack.control.restart('verifier');
    const endBy = Date.now() + 180_000;
    let after = await runRow();
    while (after?.status !== 'completed' && after?.status !== 'failed' && Date.now() < endBy) {
      await sleep(500);
      after = await runRow();
    }
    // The transaction list's pages, then one page each of the refund and dispute lists (empty here:
    // docs/reconciliation.md, "Refund and dispute lists").
    const pages = Math.ceil(RECONCILER_WINDOW / 100) + 2;
    const compared = Object.entries(after?.counts ?? {}).reduce((n, [, v]) => n + v, 0);
    check({
      name: 'the run resumed from its cursor and completed, every transaction compared once',
      ok: after?.status === 'completed' && after.pages === pages && compared === RECONCILER_WINDOW,
      detail: `${after?.status ?? 'no run'}: ${after?.pages ?? 0}/${pages} pages, ${compared}/${RECONCILER_WINDOW} compared`,
    });
    const exceptions = await bed.stack.db.query<{ n: number; refs: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT reference)::int AS refs FROM verifier.reconciliation_exceptions WHERE reference LIKE $1`,
      [`${prefix}%`],
    );
    const unknown = after?.counts.unknown_to_settle ?? -1;
    const facts = await bed.stack.db.query<{ n: number; streams: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT stream_id)::int AS streams FROM ledger.events WHERE event_type = 'ReconciliationExceptionRaised' AND stream_id LIKE $1`,
      [`reconciliation-${prefix}%`],
    );
    check({
      name: 'no exception raised twice (the verifier’s table, the ledger)',
      ok: exceptions.rows[0]!.n === exceptions.rows[0]!.refs && exceptions.rows[0]!.n === unknown && facts.rows[0]!.n === facts.rows[0]!.streams,
      detail: `${exceptions.rows[0]!.n} exceptions for ${exceptions.rows[0]!.refs} references (${unknown} unknown to Settle); ${facts.rows[0]!.n} ledger facts in ${facts.rows[0]!.streams} streams`,
    });
    return restartedAt;
  },
};

/** Every scenario of the chaos suite, in the order they run. */
export const FAULTS: readonly Fault[] = [
  killAndRestart('ingestion'),
  killIngestionMidCommands,
  killAndRestart('verifier'),
  killAndRestart('ledger-projector'),
  killAndRestart('sweeper'),
  killAndRestart('dispatcher'),
  reconcilerKill,
  sigtermEach,
  rebalance,
  brokerKill,
  registryRestart,
  postgresRestart,
  providerStorm('502'),
  providerStorm('504'),
  providerSlow,
  providerBlackhole(10_000),
  webhookFlood,
  customerFault('customer-500', 'the customer endpoint answers 500 for 4 s', { kind: 'status', status: 500 }, 4_000),
  customerFault('customer-timeout', "the customer endpoint answers after 3 s (the dispatcher's time-out is 2 s) for 4 s", { kind: 'delay', ms: 3_000 }, 4_000),
  customerFault(
    'customer-410',
    'the customer endpoint answers 410 for 2 s; its operator re-enables it 1 s later',
    { kind: 'status', status: 410 },
    2_000,
    async (bed) => {
      await sleep(1_000);
      await enableEndpoint(bed);
    },
  ),
  customerFault('customer-down', 'the customer endpoint down (connections cut) for 3 s, longer than the first retry steps', { kind: 'down' }, 3_000),
  pauseOneOfTwo('sweeper'),
  pauseOneOfTwo('verifier'),
  pauseOneOfTwo('ledger-projector'),
  pauseOneOfTwo('dispatcher'),
];
