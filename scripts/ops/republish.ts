/**
 * `settle ledger republish`: re-emits the settlement and entitlement events the ledger stands
 * for, with their original event ids, keys, headers and payloads, so a downstream subscriber
 * that lost its state can rebuild it. The records are the projector's own: every ledger event
 * goes through `outboxMessagesOf` (the pure projection the projector fills its outbox with)
 * and `outgoingRecordOf` (the topic, key and headers the outbox relay publishes with).
 *
 * Published directly, not through an outbox: the ledger is the durable source, so a run that
 * stops half-way is resumed by running it again, and a subscriber that de-duplicates by
 * `event_id` (every Settle consumer and the receiver kit do) applies each event once however
 * many times it arrives. This module is the argument parsing and the paging; ledger.ts wires
 * the store, Kafka and the progress bar.
 */
import { parseArgs } from 'node:util';
import { outboxMessagesOf, type LedgerStore, type RecordedLedgerEvent } from '@settle/ledger';
import { outgoingRecordOf, type OutgoingRecord, type Topics } from '@settle/messaging';

/** A bound of the window: a global ledger position or the time an event was recorded. */
export type Bound = { kind: 'position'; position: number } | { kind: 'time'; at: Date };

/** Which topic to republish to. */
export type RepublishTopic = 'settlements' | 'entitlements';

/** What a republish run re-emits and how. */
export interface RepublishOptions {
  /** First event (inclusive): at this position, or the first recorded at or after this time. */
  since: Bound;
  /** End of the window (exclusive): the first event at this position, or recorded at or after this time; `null` for the head. */
  until: Bound | null;
  /** Topics to republish to (both unless `--topic` names one). */
  topics: readonly RepublishTopic[];
  /** Count only; publish nothing. */
  dryRun: boolean;
  /** Records per Kafka batch (one acknowledgement awaited per batch). */
  batchSize: number;
}

/** A command-line argument is wrong (exit code 2). */
export class RepublishUsageError extends Error {}

function bound(value: string, name: string): Bound {
  if (/^\d+$/.test(value)) {
    const position = Number(value);
    if (!Number.isSafeInteger(position)) throw new RepublishUsageError(`--${name} is too large a position: ${value}`);
    return { kind: 'position', position };
  }
  // A time must say its date at least (`2026-11-25`, `2026-11-25T10:00:00Z`): a bare word is a typo, not a time.
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime())) {
    throw new RepublishUsageError(`--${name} must be a ledger position (a whole number) or an ISO 8601 time, got ${value}`);
  }
  return { kind: 'time', at };
}

/**
 * Parses the arguments of `settle ledger republish`.
 *
 *   --since <position|ISO time> (required)  [--until <position|ISO time>]  [--topic settlements|entitlements]
 *   [--dry-run]  [--batch-size <n>] (default 500, at most 10 000)
 *
 * @throws RepublishUsageError when an argument is missing or malformed.
 */
export function parseRepublishArgs(args: readonly string[]): RepublishOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      since: { type: 'string' },
      until: { type: 'string' },
      topic: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'batch-size': { type: 'string', default: '500' },
    },
  });
  if (values.since === undefined) throw new RepublishUsageError('--since <position|time> is required (0 for the whole ledger)');
  const since = bound(values.since, 'since');
  const until = values.until === undefined ? null : bound(values.until, 'until');
  if (until && until.kind === since.kind) {
    const empty = until.kind === 'position' ? until.position <= (since as { position: number }).position : until.at <= (since as { at: Date }).at;
    if (empty) throw new RepublishUsageError('--until must come after --since');
  }
  if (values.topic !== undefined && values.topic !== 'settlements' && values.topic !== 'entitlements') {
    throw new RepublishUsageError(`--topic must be settlements or entitlements, got ${values.topic}`);
  }
  const batchSize = Number(values['batch-size']);
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new RepublishUsageError(`--batch-size must be a whole number from 1 to 10000, got ${values['batch-size']}`);
  }
  return {
    since,
    until,
    topics: values.topic ? [values.topic] : ['settlements', 'entitlements'],
    dryRun: values['dry-run'],
    batchSize,
  };
}

/** Where a paging run stands: before the window, inside it, or past its end. */
export type WindowState = 'before' | 'inside' | 'past';

/**
 * The events of one page (global order) that fall in the window, and where the run stands
 * after it. The window opens at the first event at `since` (a position) or recorded at or after
 * `since` (a time) and stays open, whatever later events' clocks say, until the first event at
 * `until` or recorded at or after it, which closes it for good: a window is a contiguous run
 * of positions, so a subscriber gets a gapless range. Pure.
 */
export function selectWindow(
  page: readonly RecordedLedgerEvent[],
  options: Pick<RepublishOptions, 'since' | 'until'>,
  state: WindowState,
): { events: RecordedLedgerEvent[]; state: WindowState } {
  const reached = (b: Bound, e: RecordedLedgerEvent) => (b.kind === 'position' ? e.position >= b.position : e.recordedAt >= b.at);
  const events: RecordedLedgerEvent[] = [];
  for (const event of page) {
    if (state === 'before' && reached(options.since, event)) state = 'inside';
    if (state === 'inside' && options.until && reached(options.until, event)) state = 'past';
    if (state === 'past') break;
    if (state === 'inside') events.push(event);
  }
  return { events, state };
}

/**
 * The Kafka records ledger events stand for, in event order, restricted to the chosen topics:
 * the same topic, key, headers and payload as the projector's outbox published (events of
 * other streams, audit entries among them, stand for none). Pure.
 *
 * @throws LedgerEventShapeError when a transaction or entitlement event is malformed.
 */
export function recordsOf(events: readonly RecordedLedgerEvent[], topics: Topics, chosen: readonly RepublishTopic[]): OutgoingRecord[] {
  const wanted = new Set(chosen.map((t) => (t === 'settlements' ? topics.settlements : topics.entitlementEvents)));
  return outboxMessagesOf(events)
    .map((m) => outgoingRecordOf(topics, m))
    .filter((r) => wanted.has(r.topic));
}

/** What a run did. */
export interface RepublishResult {
  /** Ledger events read (from the first position the run needed, including those before the window). */
  read: number;
  /** Ledger events in the window. */
  inWindow: number;
  /** Records published (or, with `dryRun`, that would have been), per topic name. */
  published: Record<string, number>;
  /** Global positions of the window's first and last events; `null` for an empty window. */
  first: number | null;
  last: number | null;
}

/**
 * Reads the ledger in pages from `since` up to `until` and hands the window's records to
 * `publish` in batches of at most `batchSize`, awaiting each before reading on, so a run that
 * fails stops after its last acknowledged batch (run it again: the same ids are sent again).
 * A time `since` is found by paging from the start (the port reads by position only).
 *
 * @param publish - sends one batch and resolves once it is durable (not called with `dryRun`).
 * @param onProgress - ledger events read so far, after each page.
 */
export async function republish(
  store: Pick<LedgerStore, 'readAll'>,
  topics: Topics,
  options: RepublishOptions,
  publish: (records: readonly OutgoingRecord[]) => Promise<void>,
  onProgress: (read: number) => void = () => undefined,
  pageSize = 5_000,
): Promise<RepublishResult> {
  const result: RepublishResult = { read: 0, inWindow: 0, published: {}, first: null, last: null };
  let state: WindowState = 'before';
  let pending: OutgoingRecord[] = [];
  const flush = async (all: boolean) => {
    while (pending.length >= options.batchSize || (all && pending.length > 0)) {
      const batch = pending.slice(0, options.batchSize);
      if (!options.dryRun) await publish(batch);
      for (const r of batch) result.published[r.topic] = (result.published[r.topic] ?? 0) + 1;
      pending = pending.slice(batch.length);
    }
  };
  let after = options.since.kind === 'position' ? Math.max(options.since.position - 1, 0) : 0;
  while (state !== 'past') {
    const page = await store.readAll(after, pageSize);
    if (page.length === 0) break;
    result.read += page.length;
    after = page.at(-1)!.position;
    const selected = selectWindow(page, options, state);
    state = selected.state;
    if (selected.events.length > 0) {
      result.inWindow += selected.events.length;
      result.first ??= selected.events[0]!.position;
      result.last = selected.events.at(-1)!.position;
      pending.push(...recordsOf(selected.events, topics, options.topics));
      await flush(false);
    }
    onProgress(result.read);
  }
  await flush(true);
  return result;
}
