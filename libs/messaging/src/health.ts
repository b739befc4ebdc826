import { DEFAULT_HEALTH_CACHE_MS, DEFAULT_HEALTH_TIMEOUT_MS, HealthCheckFailure, type HealthProbe } from '@settle/platform';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Logger } from 'pino';
import type { ConsumerLoop } from './consumer.js';
import { repairKafkajsIdleTimer } from './kafkajs-idle-timer.js';

/** How long the health client waits to connect to a broker, milliseconds. */
const KAFKA_CONNECTION_TIMEOUT_MS = 1_000;

/** What a failed check of a remote dependency makes it (see `HealthProbe.whenFailing`). */
export interface RemoteProbeOptions {
  /** Default `down`. */
  whenFailing?: 'down' | 'degraded';
  /** Bound of one check, milliseconds; default `DEFAULT_HEALTH_TIMEOUT_MS` (2 000). */
  timeoutMs?: number;
  /** How long an answer is reused, milliseconds; default `DEFAULT_HEALTH_CACHE_MS` (5 000). */
  cacheMs?: number;
}

/**
 * Kafka reachable: a metadata request (`describeCluster`) through an admin client of its own
 * (client id `<clientId>-health`), connected on first use, with short time-outs and no retry (a
 * check fails fast; the next one connects again), its answer reused for `cacheMs`. Reports the
 * brokers the cluster names. kafkajs's own lines go to `logger` at `debug` (a failing check is
 * logged once by `HealthProbes`).
 *
 * @param brokers - `host:port` list (`KAFKA_BROKERS`).
 */
export function kafkaProbe(options: RemoteProbeOptions & { brokers: string[]; clientId: string; logger: Logger }): HealthProbe {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  repairKafkajsIdleTimer();
  const kafka = new Kafka({
    clientId: `${options.clientId}-health`,
    brokers: options.brokers,
    connectionTimeout: Math.min(KAFKA_CONNECTION_TIMEOUT_MS, timeoutMs),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ log }) => {
        const { message, ...extra } = log;
        options.logger.debug({ component: 'kafkajs', purpose: 'health', ...extra }, message);
      },
  });
  let admin: Promise<Admin> | null = null;
  const release = async () => {
    const held = admin;
    admin = null;
    await held?.then((a) => a.disconnect()).catch(() => undefined);
  };
  return {
    key: 'kafka',
    whenFailing: options.whenFailing ?? 'down',
    timeoutMs,
    cacheMs: options.cacheMs ?? DEFAULT_HEALTH_CACHE_MS,
    check: async () => {
      admin ??= (async () => {
        const client = kafka.admin({ retry: { retries: 0 } });
        await client.connect();
        return client;
      })();
      try {
        const cluster = await (await admin).describeCluster();
        return { brokers: cluster.brokers.length };
      } catch (error) {
        await release();
        throw error;
      }
    },
    close: release,
  };
}

/**
 * The schema registry reachable: a bounded `GET <url>/config` (the global compatibility level,
 * a few bytes), `down` unless it answers 2xx; its answer reused for `cacheMs`. The URL is never
 * reported (it may hold credentials).
 *
 * @param url - the Confluent-compatible API's base URL (`SCHEMA_REGISTRY_URL`).
 */
export function schemaRegistryProbe(url: string, options: RemoteProbeOptions = {}): HealthProbe {
  const config = `${url.replace(/\/+$/, '')}/config`;
  return {
    key: 'schema_registry',
    whenFailing: options.whenFailing ?? 'down',
    timeoutMs: options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
    cacheMs: options.cacheMs ?? DEFAULT_HEALTH_CACHE_MS,
    check: async (signal) => {
      let response: Response;
      try {
        response = await fetch(config, { signal, headers: { accept: 'application/json' } });
      } catch (error) {
        const code = (error as { cause?: { code?: unknown } }).cause?.code;
        throw new Error(typeof code === 'string' ? `unreachable (${code})` : 'unreachable', { cause: error });
      }
      await response.body?.cancel();
      if (!response.ok) throw new Error(`answered ${response.status}`);
    },
  };
}

/**
 * A consumer loop's member of its group (key `consumer:<group>`): `up` when it has joined the
 * group, with the partitions it holds (`partitions: 0`, `standby: true` for a member of a group
 * with more members than partitions, which is ready: it takes partitions over when another
 * member leaves), and while the group rebalances; `down` while it connects, after a crash
 * (until kafkajs restarts it and it joins again) and once stopped. Read from the loop's state,
 * never cached.
 */
export function consumerProbe(loop: Pick<ConsumerLoop, 'groupId' | 'state'>): HealthProbe {
  return {
    key: `consumer:${loop.groupId}`,
    whenFailing: 'down',
    timeoutMs: DEFAULT_HEALTH_TIMEOUT_MS,
    cacheMs: 0,
    check: async () => {
      const state = loop.state();
      const details = { groupId: state.groupId, state: state.phase, since: new Date(state.since).toISOString() };
      switch (state.phase) {
        case 'joined':
          return { ...details, partitions: state.partitions, assignment: state.assignment, ...(state.partitions === 0 ? { standby: true } : {}) };
        case 'rebalancing':
          return { ...details, partitions: 0 };
        case 'connecting':
          throw new HealthCheckFailure('not yet a member of its consumer group', details);
        case 'crashed':
          throw new HealthCheckFailure(`crashed: ${state.error ?? 'unknown error'}`, details);
        case 'stopped':
          throw new HealthCheckFailure('stopped', details);
      }
    },
  };
}
