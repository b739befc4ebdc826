import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Consumer, Producer } from 'kafkajs';
import pg from 'pg';
import type { TransactionStatus } from '@settle/domain';
import { connectMessaging, HEADERS, type AvroCodec, type CheckoutRegisteredV1, type ConsensusResultV1, type Topics } from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { createTestDatabase, infra, uniqueTopicPrefix } from './infra.js';

// From scripts/harness, or from dist/scripts/harness when run as built JavaScript (benchmarks).
const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../../../' : '../../../', import.meta.url));
const MAIN = join(ROOT, 'dist/apps/sweeper/src/main.js');

/** One sweeper process. */
export interface SweeperProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  logs(): string;
  /** SIGKILL: no shutdown hook runs, no offsets or claims are released. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/** A verification request the sweeper published, as read back from Kafka. */
export interface PublishedRequest {
  reference: string;
  trigger: string;
  /** Kafka record timestamp (the outbox relay's send time), epoch ms. */
  publishedAt: number;
}

/**
 * A sweeper test bed: a fresh database and topic prefix, a producer of transaction activity,
 * a reader of the requests the sweepers publish, and any number of sweeper processes started
 * from `dist/` with the same consumer group.
 */
export interface SweeperBed {
  readonly databaseUrl: string;
  readonly db: pg.Pool;
  readonly topics: Topics;
  readonly codec: AvroCodec;
  readonly producer: Producer;
  /** Requests read so far, in arrival order. */
  readonly requests: PublishedRequest[];
  start(name: string, env?: NodeJS.ProcessEnv): Promise<SweeperProcess>;
  /** Publishes `CheckoutRegistered` for each reference (occurred now unless given). */
  register(references: readonly string[], occurredAt?: number): Promise<void>;
  /** Publishes, for each reference, a consensus result moving it between two states (the verifier's answer). */
  results(references: readonly string[], stateBefore: TransactionStatus, stateAfter: TransactionStatus, occurredAt?: number): Promise<void>;
  /** SIGKILLs every sweeper still running. */
  killAll(): Promise<void>;
  /** Owners of the six partitions as the store records them: partition to owner. */
  owners(): Promise<Map<number, string>>;
  close(): Promise<void>;
}

/**
 * Starts a sweeper test bed. `env` applies to every sweeper started from it;
 * `options.adminDatabaseUrl` is the PostgreSQL server its database is created on (default the
 * local infrastructure's, `infra.adminDatabaseUrl`; the benchmarks pass `infra.benchAdminDatabaseUrl`).
 *
 * @throws Error when `dist/` is missing (run `npm run build`).
 */
export async function startSweeperBed(env: NodeJS.ProcessEnv, options: { adminDatabaseUrl?: string } = {}): Promise<SweeperBed> {
  if (!existsSync(MAIN)) throw new Error('dist/apps/sweeper is missing: run "npm run build" first');
  const database = await createTestDatabase('settle_sweeper', options.adminDatabaseUrl);
  const topicPrefix = uniqueTopicPrefix('sweeper');
  const logger = createLogger('sweeper-bed', 'fatal');
  const { kafka, topics, codec, producer } = await connectMessaging({
    clientId: 'settle-sweeper-bed',
    brokers: infra.kafkaBrokers,
    topicPrefix,
    registryUrl: infra.registryUrl,
    produces: ['CheckoutRegistered', 'ConsensusResult', 'VerificationRequested'],
    logger,
  });
  const db = new pg.Pool({ connectionString: database.url, max: 4 });
  db.on('error', () => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'settle-sweepers-'));
  const requests: PublishedRequest[] = [];
  const reader: Consumer = kafka.consumer({ groupId: `${topicPrefix}-reader`, allowAutoTopicCreation: false });
  await reader.connect();
  await reader.subscribe({ topics: [topics.transactionEvents], fromBeginning: true });
  await reader.run({
    eachMessage: async ({ message }) => {
      const event = await codec.decode(message.value, message.headers);
      if (event.type === 'VerificationRequested' && event.payload.requested_by === 'sweeper') {
        requests.push({ reference: event.payload.reference, trigger: event.payload.trigger, publishedAt: Number(message.timestamp) });
      }
    },
  });
  const processes: SweeperProcess[] = [];

  const send = async (type: 'CheckoutRegistered' | 'ConsensusResult', payloads: Array<CheckoutRegisteredV1 | ConsensusResultV1>) => {
    const topic = type === 'CheckoutRegistered' ? topics.transactionEvents : topics.consensusResults;
    for (let i = 0; i < payloads.length; i += 2_000) {
      const messages = await Promise.all(
        payloads.slice(i, i + 2_000).map(async (payload) => ({
          key: payload.reference,
          value: await codec.encode(type, payload as never),
          headers: { [HEADERS.eventType]: type, [HEADERS.correlationId]: payload.correlation_id },
        })),
      );
      await producer.send({ topic, acks: -1, messages });
    }
  };

  return {
    databaseUrl: database.url,
    db,
    topics,
    codec,
    producer,
    requests,
    async start(name, extra = {}) {
      const logPath = join(dir, `${name}.log`);
      const readyFile = join(dir, `${name}.ready`);
      rmSync(readyFile, { force: true });
      const out = openSync(logPath, 'a');
      const child = spawn(process.execPath, [MAIN], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          SETTLE_ENV: 'test',
          LOG_LEVEL: 'info',
          KAFKAJS_NO_PARTITIONER_WARNING: '1',
          KAFKA_BROKERS: infra.kafkaBrokers.join(','),
          SCHEMA_REGISTRY_URL: infra.registryUrl,
          DATABASE_URL: database.url,
          SETTLE_TOPIC_PREFIX: topicPrefix,
          SETTLE_READY_FILE: readyFile,
          ...env,
          ...extra,
        },
        stdio: ['ignore', out, out],
      });
      const logs = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await waitUntil(`sweeper ${name} to be ready`, 60_000, async () => {
        if (child.exitCode !== null) throw new Error(`sweeper ${name} exited with ${child.exitCode}:\n${logs().slice(-3000)}`);
        return existsSync(readyFile) ? true : undefined;
      });
      const proc: SweeperProcess = {
        name,
        child,
        pid: child.pid!,
        logs,
        async kill() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
      processes.push(proc);
      return proc;
    },
    async register(references, occurredAt) {
      await send(
        'CheckoutRegistered',
        references.map((reference) => ({
          event_id: randomUUID(),
          occurred_at: occurredAt ?? Date.now(),
          correlation_id: randomUUID(),
          reference,
          provider: 'paystack',
          amount_minor: 500_000,
          currency: 'NGN',
          user_id: `user-${reference}`,
          customer_email: 'ada@example.com',
          customer_phone: null,
          entitlement: 'pro-monthly',
          access_period: 'P1M',
        })),
      );
    },
    async results(references, stateBefore, stateAfter, occurredAt) {
      const at = occurredAt ?? Date.now();
      const payload = (reference: string): ConsensusResultV1 => ({
        event_id: randomUUID(),
        occurred_at: at,
        correlation_id: randomUUID(),
        causation_id: randomUUID(),
        reference,
        provider: 'paystack',
        trigger: 'sweeper_orphaned',
        verdict: stateAfter === 'RECOVERING' ? 'clearing' : 'cleared',
        provider_status: null,
        detail: null,
        outcome: stateAfter === stateBefore ? 'UNCHANGED' : (stateAfter as ConsensusResultV1['outcome']),
        ledger_event_type: null,
        ledger_expected_revision: 0,
        state_before: stateBefore,
        state_after: stateAfter,
        entitlement_status: stateAfter === 'RECOVERING' ? 'HELD_IN_REVIEW' : 'LOCKED',
        checks: [],
        amount_minor: 500_000,
        currency: 'NGN',
        user_id: `user-${reference}`,
        entitlement: 'pro-monthly',
        observed_amount_minor: null,
        charged_amount_minor: null,
        observed_currency: null,
        provider_transaction_id: null,
        access_period: 'P1M',
      });
      await send('ConsensusResult', references.map(payload));
    },
    async killAll() {
      await Promise.all(processes.map((p) => p.kill()));
    },
    async owners() {
      const { rows } = await db.query<{ partition: number; owner: string }>('SELECT partition, owner FROM sweeper.partition_owners ORDER BY partition');
      return new Map(rows.map((r) => [r.partition, r.owner]));
    },
    async close() {
      await Promise.all(processes.map((p) => p.stop()));
      await reader.disconnect();
      await producer.disconnect();
      await db.end();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
