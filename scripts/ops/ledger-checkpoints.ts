/**
 * The checkpoint side of `./settle ledger` (docs/ledger.md, "Checkpoints"): the check of the
 * ledger against the signed checkpoints read from the checkpoint sink, a checkpoint on demand,
 * and the rotation of the checkpoint key. Thin: the work is in `libs/ledger`.
 *
 * Environment: LEDGER_CHECKPOINT_DIR (the sink's folder), LEDGER_ORIGIN (default
 * `settle.dev/ledger/local`), LEDGER_CHECKPOINT_KEYS (the verifier keys to trust, one per line or
 * comma-separated; unset: those published in the sink's `keys/` folder); `checkpoint` and
 * `rotate-checkpoint-key` also the ledger vault's master keys (SETTLE_VAULT_MASTER_KEY_FILE or
 * SETTLE_VAULT_MASTER_KEYS), and `checkpoint` KAFKA_BROKERS and SCHEMA_REGISTRY_URL (its record goes
 * through the ledger's outbox, which the projector's relay publishes).
 */
import {
  FolderCheckpointSink,
  LEDGER_VAULT_SCHEMA,
  LedgerCheckpointer,
  openPublishedCheckpoints,
  parseTrustedKeys,
  PostgresLedgerWriter,
  PostgresMerkleLog,
  readCheckedEvents,
  VaultCheckpointKey,
  verifyAgainstCheckpoints,
  type LedgerCheckpoint,
  type OpenedLedgerStore,
} from '@settle/ledger';
import { connectMessaging, Outbox } from '@settle/messaging';
import { migrateSchema, type Pool } from '@settle/platform';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { pino } from 'pino';

/** The ledger's origin as the projector signs it. */
export function ledgerOrigin(): string {
  return process.env.LEDGER_ORIGIN?.trim() || 'settle.dev/ledger/local';
}

/** The configured checkpoint sink, or `null` when LEDGER_CHECKPOINT_DIR is unset. */
export function configuredSink(): FolderCheckpointSink | null {
  const dir = process.env.LEDGER_CHECKPOINT_DIR?.trim();
  return dir ? new FolderCheckpointSink(dir) : null;
}

/** What the check against checkpoints found, for `verify`'s report. */
export type CheckpointCheck =
  | { status: 'not_checked'; why: string }
  | { status: 'held'; checkpoints: number; latest: LedgerCheckpoint | null; keysFrom: string }
  | { status: 'broken'; size: number; reason: string; expected: string; found: string };

/**
 * Checks a PostgreSQL ledger against every checkpoint in the sink (`openPublishedCheckpoints`,
 * then `verifyAgainstCheckpoints` from the first event).
 *
 * @throws CheckpointSinkError when the sink cannot be read; NoteError for a configured key that is malformed.
 */
export async function checkAgainstCheckpoints(pool: Pool): Promise<CheckpointCheck> {
  const sink = configuredSink();
  if (!sink) return { status: 'not_checked', why: 'LEDGER_CHECKPOINT_DIR is not set' };
  const published = await openPublishedCheckpoints(sink, ledgerOrigin(), parseTrustedKeys(process.env.LEDGER_CHECKPOINT_KEYS));
  if (published.status === 'broken') return { status: 'broken', ...published.broken };
  if (published.checkpoints.length === 0) return { status: 'not_checked', why: `no checkpoint in ${sink.describe} yet` };
  const result = await verifyAgainstCheckpoints(readCheckedEvents(pool), published.checkpoints);
  if (result.disagreement) return { status: 'broken', ...result.disagreement };
  return { status: 'held', checkpoints: result.checkpoints, latest: published.checkpoints.at(-1) ?? null, keysFrom: published.keysFrom };
}

/** The ledger projector's vault and the checkpoint key in it. */
async function checkpointKey(pool: Pool): Promise<VaultCheckpointKey> {
  await migrateSchema(pool, vaultMigrations(LEDGER_VAULT_SCHEMA));
  return new VaultCheckpointKey(new CredentialsVault(new PostgresVaultStore(pool, LEDGER_VAULT_SCHEMA), loadMasterKeyRing()), ledgerOrigin());
}

/**
 * `checkpoint`: signs a checkpoint now (when anything but checkpoints was appended since the
 * last), appends it with its outbox record, and writes the sink.
 *
 * @returns the line to print, and whether the sink took the checkpoints (or none is configured).
 * @throws the vault's, the registry's and the database's errors.
 */
export async function checkpointNow(pool: Pool, opened: OpenedLedgerStore & { kind: 'postgres' }): Promise<{ text: string; ok: boolean }> {
  const brokers = process.env.KAFKA_BROKERS;
  const registryUrl = process.env.SCHEMA_REGISTRY_URL;
  if (!brokers || !registryUrl) throw new Error('set KAFKA_BROKERS and SCHEMA_REGISTRY_URL: the checkpoint’s record is checked against its registered schema');
  const messaging = await connectMessaging({
    clientId: 'settle-ledger-checkpoint',
    brokers: brokers.split(',').map((b) => b.trim()),
    topicPrefix: process.env.SETTLE_TOPIC_PREFIX || 'settle',
    registryUrl,
    produces: ['LedgerCheckpointed'],
    logger: pino({ level: 'warn' }, pino.destination(2)),
  });
  try {
    // The projector's relay publishes the outbox row (it polls the outbox as well as being woken).
    const writer = new PostgresLedgerWriter(pool, opened.store, new Outbox('ledger', messaging.topics, messaging.codec), { wake: () => undefined });
    const checkpointer = new LedgerCheckpointer(pool, writer, new PostgresMerkleLog(pool), await checkpointKey(pool), configuredSink(), ledgerOrigin());
    const outcome = await checkpointer.checkpoint();
    const made =
      outcome.status === 'made'
        ? `signed checkpoint ${outcome.checkpoint.size} (root ${outcome.checkpoint.root})`
        : outcome.status === 'busy'
          ? 'another checkpointer (the projector) is signing one now'
          : `no new checkpoint: the last one (size ${outcome.last?.size ?? 0}) covers every event but checkpoints`;
    // What was signed and recorded is said even when the sink then fails.
    let ok = true;
    const sink = configuredSink()
      ? await checkpointer.publish().then(
          ({ written }) => `${written} written to ${configuredSink()!.describe}`,
          (error: unknown) => {
            ok = false;
            return `FAILED: ${(error as Error).message} (the projector writes what the sink misses once it is back)`;
          },
        )
      : 'no sink (LEDGER_CHECKPOINT_DIR unset)';
    return { text: `${made}; sink: ${sink}`, ok };
  } finally {
    await messaging.producer.disconnect();
  }
}

/**
 * `rotate-checkpoint-key`: a new checkpoint key in the vault (the old private key is replaced), its
 * public key published to the sink at once.
 *
 * @returns the new public key's text (public: distribute it, docs/ledger.md, "The checkpoint key").
 */
export async function rotateCheckpointKey(pool: Pool): Promise<{ verifierKey: string; version: number; published: boolean }> {
  const { verifierKey, version } = await (await checkpointKey(pool)).rotate();
  const sink = configuredSink();
  if (sink) await sink.publishKey(verifierKey);
  return { verifierKey, version, published: sink !== null };
}
