/**
 * Signed checkpoints from the ledger's command line (`./settle ledger checkpoint`,
 * `rotate-checkpoint-key`, `verify`; docs/ledger.md, "Checkpoints") against a real PostgreSQL,
 * Kafka and schema registry: a checkpoint made on demand goes to the sink and the outbox; verify
 * passes against it, then finds a history rewritten and recomputed by a superuser (which the
 * chains alone pass), a ledger cut short, a note edited in the sink, a checkpoint by another
 * ledger; a rotated key signs what follows and the older checkpoints still verify.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_MIGRATIONS, PostgresLedger, READ_MODEL_MIGRATIONS, type LedgerEventInput } from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase, infra, rewriteLedgerHistory, uniqueTopicPrefix } from '@settle/testing';

const CLI = join(import.meta.dirname, '../../dist/scripts/ops/ledger.js');
const MASTER_KEYS = `v1:${Buffer.alloc(32, 7).toString('base64')}`;
let pool: Pool;
let url: string;
let drop: () => Promise<void>;
let sink: string;
const prefix = uniqueTopicPrefix('checkpoints');

const settled = (amount: number): LedgerEventInput => ({
  eventId: randomUUID(),
  type: 'TransactionSettled',
  data: { amount_minor: amount },
  metadata: { correlationId: 'c', causationId: 'c' },
});

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      LEDGER_STORE: 'postgres',
      LEDGER_CHECKPOINT_DIR: sink,
      LEDGER_ORIGIN: 'settle.dev/ledger/e2e',
      SETTLE_VAULT_MASTER_KEYS: MASTER_KEYS,
      SETTLE_VAULT_MASTER_KEY_FILE: '',
      LEDGER_CHECKPOINT_KEYS: '',
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: infra.registryUrl,
      SETTLE_TOPIC_PREFIX: prefix,
      ...env,
    },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function appendEvents(count: number): Promise<void> {
  const ledger = new PostgresLedger(pool);
  for (let i = 0; i < count; i++) await ledger.append(`transaction-ref_${randomUUID().slice(0, 8)}`, [settled(100 + i)], 'no_stream');
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error('dist/scripts/ops/ledger.js is missing: run "npm run build" first');
  const database = await createTestDatabase('settle_checkpoint_cli');
  url = database.url;
  drop = database.drop;
  pool = createPool(url, 2);
  await migrateSchemas(pool, [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  sink = await mkdtemp(join(tmpdir(), 'settle-sink-'));
  await appendEvents(12);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
  if (sink) await rm(sink, { recursive: true, force: true });
});

describe('./settle ledger checkpoints', () => {
  it('says the history was checked by the chains alone while the sink holds no checkpoint', () => {
    const { code, stderr } = cli(['verify']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/checkpoints: not checked \(no checkpoint in .* yet\)/);
  });

  it('signs a checkpoint on demand: the fact and its outbox record in the ledger, the note and its key in the sink', async () => {
    const { code, stderr } = cli(['checkpoint']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/signed checkpoint 12 \(root [0-9a-f]{64}\); sink: 1 written/);
    expect(await readdir(sink)).toContain('checkpoint-0000000000000012.note');
    expect((await readdir(join(sink, 'keys'))).filter((f) => f.endsWith('.vkey'))).toHaveLength(1);
    const { rows } = await pool.query<{ event_type: string; topic: string; message_key: string }>(
      `SELECT e.event_type, o.topic, o.message_key FROM ledger.events e, ledger.outbox o WHERE e.stream_id = 'ledger-checkpoints' AND o.event_type = 'LedgerCheckpointed'`,
    );
    expect(rows).toEqual([{ event_type: 'LedgerCheckpointed', topic: `${prefix}.ledger-checkpoints.v1`, message_key: 'settle.dev/ledger/e2e' }]);
    // Only the checkpoint was appended since: asked again, it covers everything already.
    expect(cli(['checkpoint']).stderr).toMatch(/no new checkpoint: the last one \(size 12\)/);
  });

  it('rotates the key: the new public key is printed and published; both checkpoints verify', async () => {
    const rotated = cli(['rotate-checkpoint-key']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const key = rotated.stdout.trim();
    expect(key).toMatch(/^settle\.dev\/ledger\/e2e\+[0-9a-f]{8}\+[A-Za-z0-9+/=]+$/);
    expect(await readFile(join(sink, 'keys', `${key.split('+')[1]}.vkey`), 'utf8')).toBe(`${key}\n`);
    await appendEvents(3);
    expect(cli(['checkpoint']).stderr).toMatch(/signed checkpoint 16/);
    const { code, stderr } = cli(['verify']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/the ledger matches all 2 signed checkpoints \(keys from .*keys\); the latest covers positions 1 to 16/);
    // Trusting only the new key (as an auditor who was given only it would), the older checkpoint is refused.
    const onlyNew = cli(['verify'], { LEDGER_CHECKPOINT_KEYS: key });
    expect(onlyNew.code).toBe(1);
    expect(onlyNew.stderr).toMatch(/BROKEN against the signed checkpoint of size 12: CHECKPOINT_UNVERIFIED/);
  });

  it('refuses a note edited in the sink, and a checkpoint of another ledger', async () => {
    const other = await mkdtemp(join(tmpdir(), 'settle-sink-other-'));
    try {
      await mkdir(join(other, 'keys'));
      for (const f of await readdir(join(sink, 'keys'))) await writeFile(join(other, 'keys', f), await readFile(join(sink, 'keys', f)));
      const note = await readFile(join(sink, 'checkpoint-0000000000000012.note'), 'utf8');
      await writeFile(join(other, 'checkpoint-0000000000000012.note'), note.replace(/^time \d+$/m, 'time 1'));
      const edited = cli(['verify'], { LEDGER_CHECKPOINT_DIR: other });
      expect(edited.code).toBe(1);
      expect(edited.stderr).toMatch(/CHECKPOINT_UNVERIFIED/);

      const foreign = cli(['verify'], { LEDGER_ORIGIN: 'settle.dev/ledger/staging' });
      expect(foreign.code).toBe(1);
      expect(foreign.stderr).toMatch(/CHECKPOINT_OTHER_LEDGER\n {2}expected settle\.dev\/ledger\/staging\n {2}found {4}settle\.dev\/ledger\/e2e/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  // Last: it leaves the ledger rewritten.
  it('finds a history rewritten and recomputed by a superuser, which the chains alone pass', async () => {
    // Rewrite the amount of the event at position 3 and recompute every later hash and the head.
    await rewriteLedgerHistory(pool, 3, (data) => ({ ...data, amount_minor: 1 }));
    const { code, stderr } = cli(['verify']);
    expect(stderr).toMatch(/both chains hold/);
    expect(code).toBe(1);
    expect(stderr).toMatch(/BROKEN against the signed checkpoint of size 12: ROOT_MISMATCH/);
  });
});
