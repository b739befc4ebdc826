/**
 * Ops command line of the immutable ledger (`./settle ledger ...`). Thin: argument parsing,
 * output and progress here; reading, verifying and rebuilding in `libs/ledger`.
 *
 *   ./settle ledger replay [--reference <ref> | --user <id> --entitlement <name> | --stream <id>] [--from <position>]
 *                          [--since <ISO time>] [--until <ISO time>] [--format jsonl|csv]
 *   ./settle ledger export  (the same as replay; for auditors: --format csv)
 *   ./settle ledger verify [--from <position>]
 *   ./settle ledger checkpoint
 *   ./settle ledger rotate-checkpoint-key
 *   ./settle ledger rebuild-read-models
 *   ./settle ledger republish --since <position|ISO time> [--until <position|ISO time>]
 *                             [--topic settlements|entitlements] [--dry-run] [--batch-size <n>]
 *
 * Output that can be piped (events, as JSON Lines or CSV) goes to standard output and nothing
 * else does; progress bars (when standard error is a terminal) and the final summary go to
 * standard error. Environment: DATABASE_URL (the read models, and the ledger on PostgreSQL),
 * LEDGER_STORE (`postgres`, the default, or `kurrentdb` with KURRENTDB_CONNECTION_STRING: the
 * same commands read EventStoreDB/KurrentDB; there `verify` checks the per-stream chains, the
 * only ones that store keeps, from the start). `republish` also reads KAFKA_BROKERS,
 * SCHEMA_REGISTRY_URL and SETTLE_TOPIC_PREFIX (default `settle`) (scripts/ops/republish.ts). Exit codes: 0 done, 1 a chain is broken or the
 * command failed, 2 usage error.
 */
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { stringify } from 'csv-stringify/sync';
import { ConfigError, loadLedgerStoreConfig } from '@settle/config';
import {
  entitlementStream,
  LEDGER_RECORD_TYPES,
  LedgerPositionError,
  openLedgerStore,
  verifyLedger,
  verifyStreamChains,
  READ_MODEL_MIGRATIONS,
  rebuildReadModels,
  transactionStream,
  type OpenedLedgerStore,
  type RecordedLedgerEvent,
} from '@settle/ledger';
import { connectMessaging, topicNames, type MessagingConnection, type OutgoingRecord } from '@settle/messaging';
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { pino } from 'pino';
import { checkAgainstCheckpoints, checkpointNow, rotateCheckpointKey, type CheckpointCheck } from './ledger-checkpoints.js';
import { parseRepublishArgs, republish, RepublishUsageError } from './republish.js';

const USAGE = `usage: settle ledger <command> [options]
  replay [--reference <ref> | --user <id> --entitlement <name> | --stream <id>] [--from <position>]
         [--since <time>] [--until <time>] [--format jsonl|csv]
                        events in global order (one stream: in revision order) to standard output;
                        --reference: a transaction's outcomes, --user and --entitlement: that user's grants
  export                the same as replay (auditors: --format csv)
  verify [--from <position>]
                        verify the SHA-256 chains (per stream and global) and, on PostgreSQL, the ledger against
                        every signed checkpoint in LEDGER_CHECKPOINT_DIR; report the first break
  checkpoint            sign a checkpoint of the ledger now (PostgreSQL) and write it to the checkpoint sink
  rotate-checkpoint-key make a new checkpoint key in the ledger's vault; print its public key (to distribute)
  rebuild-read-models   drop and rebuild the ledger's read models (transaction_status, entitlements, unmatched_payments,
                        reconciliation_runs, reconciliation_exceptions) from the ledger alone
  republish --since <position|time> [--until <position|time>] [--topic settlements|entitlements] [--dry-run] [--batch-size <n>]
                        re-emit the settlement and entitlement events of a window of the ledger (positions or
                        recording times; --since inclusive, --until exclusive) with their original ids, for a
                        subscriber that lost its state; --dry-run counts only
environment: DATABASE_URL; LEDGER_STORE=postgres (default) | kurrentdb with KURRENTDB_CONNECTION_STRING;
             republish, checkpoint: KAFKA_BROKERS, SCHEMA_REGISTRY_URL, SETTLE_TOPIC_PREFIX (default settle);
             checkpoints: LEDGER_CHECKPOINT_DIR, LEDGER_ORIGIN, LEDGER_CHECKPOINT_KEYS (keys to trust; default: the sink's),
             checkpoint, rotate-checkpoint-key: SETTLE_VAULT_MASTER_KEY_FILE (the ledger vault's master keys)`;

class UsageError extends Error {}

const CSV_COLUMNS = ['position', 'recorded_at', 'stream_id', 'revision', 'event_id', 'event_type', 'stream_hash', 'global_hash', 'data', 'metadata'];

/** The flat, documented shape of an exported event (the same in JSON Lines and CSV). */
function exported(e: RecordedLedgerEvent) {
  return {
    position: e.position,
    recorded_at: e.recordedAt.toISOString(),
    stream_id: e.streamId,
    revision: e.revision,
    event_id: e.eventId,
    event_type: e.type,
    stream_hash: e.streamHash,
    global_hash: e.globalHash,
    data: e.data,
    metadata: e.metadata,
  };
}

/** Writes to standard output, waiting when the reader is slower (a pipe to `less`). */
async function out(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

function progress(label: string, total: number): { update(n: number): void; stop(): void } {
  if (!process.stderr.isTTY || total === 0) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} events | {eta_formatted} left`, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return { update: (n) => bar.update(n), stop: () => bar.stop() };
}

function position(value: string | undefined, name: string): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be a position (a whole number), got ${value}`);
  return n;
}

function time(value: string | undefined, name: string): Date | null {
  if (value === undefined) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--${name} must be an ISO 8601 time, got ${value}`);
  return d;
}

/** Events after a position, for a progress bar's total; 0 (no bar) where the store cannot count cheaply (KurrentDB). */
async function countAfter(pool: Pool, ledger: OpenedLedgerStore, after: number): Promise<number> {
  if (ledger.kind !== 'postgres') return 0;
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM ledger.events WHERE position > $1', [after]);
  return Number(rows[0]!.n);
}

async function replay(pool: Pool, opened: OpenedLedgerStore, args: string[]): Promise<number> {
  const ledger = opened.store;
  const { values } = parseArgs({
    args,
    options: {
      reference: { type: 'string' },
      user: { type: 'string' },
      entitlement: { type: 'string' },
      stream: { type: 'string' },
      from: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      format: { type: 'string', default: 'jsonl' },
    },
  });
  if (values.format !== 'jsonl' && values.format !== 'csv') throw new UsageError(`--format must be jsonl or csv, got ${values.format}`);
  if ([values.reference, values.user ?? values.entitlement, values.stream].filter(Boolean).length > 1) {
    throw new UsageError('give one of --reference, --user with --entitlement, or --stream');
  }
  if (Boolean(values.user) !== Boolean(values.entitlement)) throw new UsageError('--user and --entitlement go together');
  const from = position(values.from, 'from');
  const [since, until] = [time(values.since, 'since'), time(values.until, 'until')];
  const csv = values.format === 'csv';
  const keep = (e: RecordedLedgerEvent) => e.position > from && (!since || e.recordedAt >= since) && (!until || e.recordedAt < until);
  const emit = async (events: readonly RecordedLedgerEvent[]) => {
    const rows = events.filter(keep).map(exported);
    if (rows.length === 0) return 0;
    const text = csv
      ? stringify(
          rows.map((r) => ({ ...r, data: JSON.stringify(r.data), metadata: JSON.stringify(r.metadata) })),
          { columns: CSV_COLUMNS },
        )
      : rows.map((r) => `${JSON.stringify(r)}\n`).join('');
    await out(text);
    return rows.length;
  };
  if (csv) await out(stringify([], { header: true, columns: CSV_COLUMNS }));
  const started = Date.now();
  let written = 0;
  const stream =
    values.stream ??
    (values.reference ? transactionStream(values.reference) : values.user && values.entitlement ? entitlementStream(values.user, values.entitlement) : null);
  if (stream) {
    written = await emit(await ledger.readStream(stream));
  } else {
    const bar = progress('replay', await countAfter(pool, opened, from));
    let read = 0;
    for (let after = from; ;) {
      const page = await ledger.readAll(after, 5_000);
      if (page.length === 0) break;
      written += await emit(page);
      read += page.length;
      after = page.at(-1)!.position;
      bar.update(read);
    }
    bar.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `replayed ${written} events${stream ? ` of ${stream}` : ''} in ${seconds.toFixed(1)} s (${Math.round(written / Math.max(seconds, 0.001))} events/s)\n`,
  );
  return 0;
}

async function verify(pool: Pool, opened: OpenedLedgerStore, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' } } });
  const from = position(values.from, 'from');
  if (opened.kind === 'kurrentdb' && from > 0)
    throw new UsageError('--from needs a ledger with a global chain (LEDGER_STORE=postgres); KurrentDB is verified from the start');
  const bar = progress('verify', await countAfter(pool, opened, from));
  const started = Date.now();
  let result;
  try {
    const onProgress = (n: number) => bar.update(n);
    result = opened.kind === 'postgres' ? await verifyLedger(opened.store, { from, onProgress }) : await verifyStreamChains(opened.store, { onProgress });
  } catch (error) {
    if (error instanceof LedgerPositionError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar.stop();
  }
  const { broken, checked, last, globalHash } = result;
  const seconds = (Date.now() - started) / 1000;
  if (broken) {
    process.stderr.write(
      `BROKEN at position ${broken.position} (${broken.streamId || 'ledger head'} revision ${broken.revision}): ${broken.reason}\n  expected ${broken.expected}\n  found    ${broken.found}\n` +
        `checked ${checked} events in ${seconds.toFixed(1)} s\n`,
    );
    return 1;
  }
  process.stderr.write(
    opened.kind === 'postgres'
      ? `verified ${checked} events after position ${from} up to the head at ${last}: both chains hold (head ${globalHash}) in ${seconds.toFixed(1)} s\n`
      : `verified ${checked} events of KurrentDB up to position ${last}: every stream's chain holds (this store keeps no global chain) in ${seconds.toFixed(1)} s\n`,
  );
  if (opened.kind !== 'postgres') return 0;
  const check = await checkAgainstCheckpoints(pool);
  process.stderr.write(`${checkpointReport(check)}\n`);
  return check.status === 'broken' ? 1 : 0;
}

/** One line (two for a break) on the check against the signed checkpoints. */
function checkpointReport(check: CheckpointCheck): string {
  switch (check.status) {
    case 'not_checked':
      return `checkpoints: not checked (${check.why}): a history rewritten and recomputed inside the database would pass the chains alone`;
    case 'held':
      return check.latest
        ? `checkpoints: the ledger matches all ${check.checkpoints} signed checkpoints (keys from ${check.keysFrom}); the latest covers positions 1 to ${check.latest.size}, signed ${new Date(check.latest.at).toISOString()}`
        : 'checkpoints: none to check';
    case 'broken':
      return `BROKEN against the signed checkpoint of size ${check.size}: ${check.reason}\n  expected ${check.expected}\n  found    ${check.found}`;
  }
}

async function rebuild(pool: Pool, opened: OpenedLedgerStore): Promise<number> {
  await migrateSchema(pool, READ_MODEL_MIGRATIONS);
  const bar = progress('rebuild', await countAfter(pool, opened, 0));
  const started = Date.now();
  const result = await rebuildReadModels(pool, opened.store, (n) => bar.update(n));
  bar.stop();
  process.stderr.write(
    `rebuilt the read models from ${result.events} ledger events: ${result.rows} transaction_status rows, ${result.entitlements} entitlements rows, ${result.unmatched} unmatched_payments rows, ${result.reconciliation} reconciliation rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return 0;
}

/** Kafka and the registry from the environment, with the schemas of the republished record types registered. */
async function connectForRepublish(prefix: string): Promise<MessagingConnection> {
  const brokers = process.env.KAFKA_BROKERS;
  const registryUrl = process.env.SCHEMA_REGISTRY_URL;
  if (!brokers || !registryUrl) throw new UsageError('set KAFKA_BROKERS and SCHEMA_REGISTRY_URL (or give --dry-run)');
  return connectMessaging({
    clientId: 'settle-ledger-republish',
    brokers: brokers.split(',').map((b) => b.trim()),
    topicPrefix: prefix,
    registryUrl,
    produces: LEDGER_RECORD_TYPES,
    logger: pino({ level: 'warn' }, pino.destination(2)),
  });
}

/** Sends one batch of records (Avro-encoded, grouped by topic) with acks from every in-sync replica; resolves once Kafka acknowledged it. */
function recordPublisher(messaging: MessagingConnection): (records: readonly OutgoingRecord[]) => Promise<void> {
  return async (records) => {
    const byTopic = new Map<string, Array<{ key: string; value: Buffer; headers: Record<string, string> }>>();
    for (const r of records) {
      const value = await messaging.codec.encode(r.type, r.payload);
      byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), { key: r.key, value, headers: r.headers }]);
    }
    await messaging.producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
  };
}

/** `republish`: pages the ledger and re-emits its window's records with an idempotent, acks-all producer. */
async function republishCommand(pool: Pool, opened: OpenedLedgerStore, args: string[]): Promise<number> {
  let options;
  try {
    options = parseRepublishArgs(args);
  } catch (error) {
    if (error instanceof RepublishUsageError) throw new UsageError(error.message);
    throw error;
  }
  const prefix = process.env.SETTLE_TOPIC_PREFIX || 'settle';
  const messaging = options.dryRun ? null : await connectForRepublish(prefix);
  const topics = messaging?.topics ?? topicNames(prefix);
  const publish = messaging
    ? recordPublisher(messaging)
    : async () => {
        throw new Error('a dry run publishes nothing');
      };
  const after = options.since.kind === 'position' ? Math.max(options.since.position - 1, 0) : 0;
  // Positions are gapless on PostgreSQL, so a position window's size is known; a time window's is not (the bar stops early).
  const count = await countAfter(pool, opened, after);
  const total = options.until?.kind === 'position' ? Math.min(count, options.until.position - 1 - after) : count;
  const bar = progress(options.dryRun ? 'count' : 'republish', total);
  const started = Date.now();
  let result;
  try {
    result = await republish(opened.store, topics, options, publish, (n) => bar.update(Math.min(n, total)));
  } finally {
    bar.stop();
    await messaging?.producer.disconnect();
  }
  const seconds = (Date.now() - started) / 1000;
  const counts = [topics.settlements, topics.entitlementEvents].map((t) => `${result.published[t] ?? 0} to ${t}`).join(', ');
  const window = result.first === null ? 'no ledger events in the window' : `${result.inWindow} ledger events at positions ${result.first} to ${result.last}`;
  process.stderr.write(`${options.dryRun ? 'would republish' : 'republished'} ${counts} (${window}) in ${seconds.toFixed(1)} s\n`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const url = process.env.DATABASE_URL;
  if (!command || command === 'help' || command === '--help') {
    process.stderr.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (!['replay', 'export', 'verify', 'checkpoint', 'rotate-checkpoint-key', 'rebuild-read-models', 'republish'].includes(command))
    throw new UsageError(`unknown command ${command}`);
  if (!url) throw new UsageError('set DATABASE_URL');
  let storeConfig;
  try {
    storeConfig = loadLedgerStoreConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  const pool = createPool(url, 2);
  const ledger = openLedgerStore(storeConfig, pool);
  try {
    if (command === 'verify') return await verify(pool, ledger, args);
    if (command === 'checkpoint') {
      if (ledger.kind !== 'postgres') throw new UsageError('checkpoints need the PostgreSQL ledger (docs/ledger.md, "Checkpoints on KurrentDB")');
      const { text, ok } = await checkpointNow(pool, ledger);
      process.stderr.write(`${text}\n`);
      return ok ? 0 : 1;
    }
    if (command === 'rotate-checkpoint-key') {
      const { verifierKey, version, published } = await rotateCheckpointKey(pool);
      process.stdout.write(`${verifierKey}\n`);
      process.stderr.write(
        `the checkpoint key is now version ${version} of the ledger vault; its public key (above) is ${published ? 'published in the checkpoint sink' : 'NOT published: LEDGER_CHECKPOINT_DIR is unset'}; add it to every verifier's LEDGER_CHECKPOINT_KEYS and keep the old ones (docs/ledger.md, "The checkpoint key")\n`,
      );
      return 0;
    }
    if (command === 'rebuild-read-models') return await rebuild(pool, ledger);
    if (command === 'republish') return await republishCommand(pool, ledger, args);
    return await replay(pool, ledger, args);
  } finally {
    await ledger.close();
    await pool.end();
  }
}

// A closed pipe (`| head`) is a normal end, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      process.stderr.write(`error: ${(error as Error).message}\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
