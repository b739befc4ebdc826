import type { Logger } from '@settle/platform';
import type { KafkaFiguresSource } from './kafka-admin-source.js';
import type { ConsumerGroupLag, DeadLetterTopicFigures } from './kafka-figures.js';

/** The marker of a Kafka figure the console could not read this time (docs/errors.md). */
export const KAFKA_UNAVAILABLE = 'CONSOLE.KAFKA_UNAVAILABLE';

/**
 * A figure read from Kafka: read (`ok`, with when), not read this time (`unavailable`: the
 * brokers did not answer in time or refused; the rest of the Overview still answers), or not
 * configured (`KAFKA_BROKERS` unset).
 */
export type KafkaReading<T> =
  | ({ status: 'ok'; checkedAt: string } & T)
  | { status: 'unavailable'; code: typeof KAFKA_UNAVAILABLE; detail: string; checkedAt: string }
  | { status: 'not_configured' };

/** Records in the dead-letter topics: their sum and each topic's. */
export type DeadLetteredMessages = KafkaReading<{ total: number; topics: DeadLetterTopicFigures[] }>;

/** The workers' consumer lag: the sum over groups and each group's, with its partitions. */
export type ConsumerLag = KafkaReading<{ total: number; groups: ConsumerGroupLag[] }>;

/** The Overview's Kafka figures. */
export interface KafkaFigures {
  deadLetteredMessages: DeadLetteredMessages;
  consumerLag: ConsumerLag;
}

/** How long an answer is reused, milliseconds: the Overview polls, the brokers are asked at most this often. */
export const KAFKA_CACHE_MS = 5_000;
/** Longest one read of Kafka may take before it counts as unavailable, milliseconds. */
export const KAFKA_READ_TIMEOUT_MS = 3_000;

/** A read took longer than its bound. */
class ReadTimedOut extends Error {
  constructor(readonly ms: number) {
    super(`Kafka did not answer within ${ms} ms`);
    this.name = 'ReadTimedOut';
  }
}

/**
 * `work` bounded by `ms` milliseconds.
 *
 * @throws ReadTimedOut when it takes longer (the work itself goes on, its outcome ignored).
 */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReadTimedOut(ms)), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The Overview's Kafka figures (docs/console.md, "Overview"), read through a
 * {@link KafkaFiguresSource} with each read bounded ({@link KAFKA_READ_TIMEOUT_MS}) and the
 * answer, success or failure, reused for {@link KAFKA_CACHE_MS}: concurrent and repeated
 * Overview requests share one read. The two figures are read independently, so one failing
 * leaves the other. A failure answers `unavailable` with a fixed detail (never the client's
 * error text, which could name internals); the cause is logged once per outage.
 */
export class KafkaOverview {
  private cached: { at: number; figures: Promise<KafkaFigures> } | null = null;
  private readonly down: Record<keyof KafkaFigures, boolean> = { deadLetteredMessages: false, consumerLag: false };

  /**
   * @param source - `null` when Kafka is not configured: both figures answer `not_configured`.
   * @param options.now - clock, epoch milliseconds.
   */
  constructor(
    private readonly source: KafkaFiguresSource | null,
    private readonly logger: Logger,
    private readonly options: { cacheMs?: number; timeoutMs?: number; now?: () => number } = {},
  ) {}

  /** The figures, from the cache when younger than the cache time. Never throws. */
  read(): Promise<KafkaFigures> {
    const now = (this.options.now ?? Date.now)();
    if (this.cached && now - this.cached.at < (this.options.cacheMs ?? KAFKA_CACHE_MS)) return this.cached.figures;
    const figures = this.readNow(now);
    this.cached = { at: now, figures };
    return figures;
  }

  /** Closes the source's connections. */
  async close(): Promise<void> {
    await this.source?.close();
  }

  private async readNow(now: number): Promise<KafkaFigures> {
    const source = this.source;
    if (!source) return { deadLetteredMessages: { status: 'not_configured' }, consumerLag: { status: 'not_configured' } };
    const checkedAt = new Date(now).toISOString();
    const [deadLetteredMessages, consumerLag] = await Promise.all([
      this.bounded('deadLetteredMessages', checkedAt, async () => {
        const topics = await source.deadLetters();
        return { total: topics.reduce((sum, t) => sum + t.records, 0), topics };
      }),
      this.bounded('consumerLag', checkedAt, async () => {
        const groups = await source.consumerLag();
        return { total: groups.reduce((sum, g) => sum + g.lag, 0), groups };
      }),
    ]);
    return { deadLetteredMessages, consumerLag };
  }

  private async bounded<T extends object>(figure: keyof KafkaFigures, checkedAt: string, read: () => Promise<T>): Promise<KafkaReading<T>> {
    const timeoutMs = this.options.timeoutMs ?? KAFKA_READ_TIMEOUT_MS;
    try {
      const value = await withTimeout(read(), timeoutMs);
      if (this.down[figure]) this.logger.info({ figure }, 'Kafka answers the overview again');
      this.down[figure] = false;
      return { status: 'ok', checkedAt, ...value };
    } catch (error) {
      if (!this.down[figure]) this.logger.warn({ err: error, figure }, 'Kafka could not be read for the overview; it shows the figure as unavailable');
      this.down[figure] = true;
      const detail = error instanceof ReadTimedOut ? `Kafka did not answer within ${timeoutMs} ms` : 'Kafka could not be read';
      return { status: 'unavailable', code: KAFKA_UNAVAILABLE, detail, checkedAt };
    }
  }
}
