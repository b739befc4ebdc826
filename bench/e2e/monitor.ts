import { performance } from 'node:perf_hooks';
import type { Topics } from '@settle/messaging';
import { AssignerProtocol, type Admin } from 'kafkajs';
import type pg from 'pg';
import { sleep } from '../support/open-loop.js';
import { rssMiB } from './measures.js';
import { Db } from './watches.js';

/** Consumer lag of the stack's groups, messages. */
export interface LagSample {
  total: number;
  byGroup: Record<string, number>;
}

/** Unpublished outbox rows by schema. */
export interface BacklogSample {
  total: number;
  bySchema: Record<string, number>;
}

/**
 * Consumer lag and outbox backlog of one stack. Lag: each group named `<topicPrefix>-…`
 * (admin `listGroups`), over the topics its members subscribed (their join metadata), the sum
 * over partitions of the high watermark minus the committed offset (the low watermark when
 * nothing is committed yet). Backlog: every schema with an `outbox` table, rediscovered every
 * 10 s from information_schema.
 */
export class StackMonitor {
  private readonly subscriptions = new Map<string, string[]>();
  private outboxes: Array<{ schema: string; unpublishedOnly: boolean }> = [];
  private outboxesAt = -Infinity;

  constructor(
    private readonly admin: Admin,
    private readonly db: Db,
    private readonly topicPrefix: string,
    private readonly topics: Topics,
  ) {}

  async lag(): Promise<LagSample> {
    const { groups } = await this.admin.listGroups();
    const ids = groups.map((g) => g.groupId).filter((id) => id.startsWith(`${this.topicPrefix}-`));
    const unknown = ids.filter((id) => !this.subscriptions.has(id));
    if (unknown.length > 0) {
      const described = await this.admin.describeGroups(unknown);
      for (const group of described.groups) {
        const topics = new Set<string>();
        for (const member of group.members) {
          try {
            for (const topic of AssignerProtocol.MemberMetadata.decode(member.memberMetadata)?.topics ?? []) topics.add(topic);
          } catch {
            // not the consumer protocol's metadata: fall back to the committed topics
          }
        }
        if (topics.size > 0) this.subscriptions.set(group.groupId, [...topics]);
      }
    }
    const watermarks = new Map<string, Map<number, { high: number; low: number }>>();
    const watermarksOf = async (topic: string) => {
      let w = watermarks.get(topic);
      if (!w) {
        const offsets = await this.admin.fetchTopicOffsets(topic);
        w = new Map(offsets.map((o) => [o.partition, { high: Number(o.high), low: Number(o.low) }]));
        watermarks.set(topic, w);
      }
      return w;
    };
    const byGroup: Record<string, number> = {};
    let total = 0;
    for (const groupId of ids) {
      const subscribed = this.subscriptions.get(groupId);
      const committed = await this.admin.fetchOffsets({ groupId, topics: subscribed ?? Object.values(this.topics) });
      let lag = 0;
      for (const { topic, partitions } of committed) {
        // Without known subscriptions, a topic with nothing committed is taken as not consumed.
        if (!subscribed && partitions.every((p) => Number(p.offset) < 0)) continue;
        const w = await watermarksOf(topic);
        for (const p of partitions) {
          const mark = w.get(p.partition);
          if (!mark) continue;
          const offset = Number(p.offset);
          lag += Math.max(0, mark.high - (offset >= 0 ? offset : mark.low));
        }
      }
      byGroup[groupId.slice(this.topicPrefix.length + 1)] = lag;
      total += lag;
    }
    return { total, byGroup };
  }

  async backlog(): Promise<BacklogSample> {
    if (performance.now() - this.outboxesAt > 10_000) {
      const { rows } = await this.db.query<{ schema: string; unpublished_only: boolean }>(
        `SELECT table_schema AS schema, bool_or(column_name = 'published_at') AS unpublished_only
           FROM information_schema.columns WHERE table_name = 'outbox' GROUP BY table_schema ORDER BY table_schema`,
      );
      this.outboxes = rows.map((r) => ({ schema: r.schema, unpublishedOnly: r.unpublished_only }));
      this.outboxesAt = performance.now();
    }
    if (this.outboxes.length === 0) return { total: 0, bySchema: {} };
    const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
    const sql = this.outboxes
      .map(
        (o) =>
          `SELECT ${`'${o.schema.replaceAll("'", "''")}'`}::text AS schema, count(*)::int AS n FROM ${quote(o.schema)}.outbox${o.unpublishedOnly ? ' WHERE published_at IS NULL' : ''}`,
      )
      .join(' UNION ALL ');
    const { rows } = await this.db.query<{ schema: string; n: number }>(sql);
    const bySchema = Object.fromEntries(rows.map((r) => [r.schema, r.n]));
    return { total: rows.reduce((a, r) => a + r.n, 0), bySchema };
  }
}

/** PostgreSQL counters of the stack's database (`pg_stat_database`) and the cluster's WAL (`pg_stat_wal`). */
export interface PgStats {
  at: number;
  /** `pg_postmaster_start_time()`: a change means the server restarted in between. */
  serverStartedAt: string;
  xactCommit: number;
  blocks: number;
  walBytes: number | null;
  /** The benchmark's own queries on the stack's database so far. */
  ownQueries: number;
}

export async function pgStats(admin: pg.Pool, database: string, db: Db): Promise<PgStats> {
  const ownQueries = db.queries;
  const { rows } = await admin.query<{ xact_commit: string; blocks: string; started: string }>(
    'SELECT xact_commit::text, (blks_hit + blks_read)::text AS blocks, pg_postmaster_start_time()::text AS started FROM pg_stat_database WHERE datname = $1',
    [database],
  );
  let walBytes: number | null = null;
  try {
    walBytes = Number((await admin.query<{ wal_bytes: string }>('SELECT wal_bytes::text FROM pg_stat_wal')).rows[0]?.wal_bytes ?? Number.NaN);
  } catch {
    walBytes = null; // before PostgreSQL 14
  }
  return {
    at: performance.now(),
    serverStartedAt: rows[0]?.started ?? '',
    xactCommit: Number(rows[0]?.xact_commit ?? Number.NaN),
    blocks: Number(rows[0]?.blocks ?? Number.NaN),
    walBytes,
    ownQueries,
  };
}

/** Per-second PostgreSQL work of the stack while idle (relay polls, sweeper ticks, this benchmark's pollers). */
export interface PgBackground {
  seconds: number;
  commitsPerSecond: number;
  blocksPerSecond: number;
  walBytesPerSecond: number | null;
  /** CPU of each process group of the idle stack over the same window, cores. */
  idleCores: Record<string, number>;
}

/** One sample of the stack every second. */
export interface Sample {
  /** Seconds since the phase's first webhook. */
  t: number;
  lag: LagSample | null;
  backlog: BacklogSample | null;
  /** RSS by app, MiB (on the RSS schedule only). */
  rss: Record<string, number> | null;
}

/** Samples lag and backlog every second and RSS every `rssEveryMs`, until stopped. */
export class Sampler {
  readonly samples: Sample[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(monitor: StackMonitor, apps: Map<string, number>, t0: number, rssEveryMs: number) {
    this.loop = (async () => {
      let next = performance.now();
      let lastRss = -Infinity;
      while (this.running) {
        const now = performance.now();
        let rss: Record<string, number> | null = null;
        if (now - lastRss >= rssEveryMs - 5) {
          lastRss = now;
          rss = Object.fromEntries([...apps].map(([app, pid]) => [app, rssMiB(pid)]));
        }
        const [lag, backlog] = await Promise.all([monitor.lag().catch(() => null), monitor.backlog().catch(() => null)]);
        this.samples.push({ t: (now - t0) / 1000, lag, backlog, rss });
        next += 1000;
        while (this.running && performance.now() < next) await sleep(Math.min(100, next - performance.now()));
      }
    })();
  }

  async stop(): Promise<Sample[]> {
    this.running = false;
    await this.loop;
    return this.samples;
  }
}

// ---------------------------------------------------------------------------------------------
// One phase.
