/**
 * The ledger's ops command line (`./settle ledger`, built to dist/scripts/ops/ledger.js) against a
 * real PostgreSQL: replay and export for auditors (JSON Lines and CSV, clean standard output,
 * a closed pipe is not an error), chain verification that finds the first break, and the read
 * model rebuilt from the ledger alone.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideGrant, foldEntitlement, parseAccessPeriod } from '@settle/domain';
import {
  entitlementEventOf,
  entitlementLedgerEvent,
  entitlementStream,
  expectedAfter,
  LEDGER_MIGRATIONS,
  PostgresLedger,
  READ_MODEL_MIGRATIONS,
  type LedgerEventInput,
} from '@settle/ledger';
import { createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase, withTriggersOff } from '@settle/testing';

const CLI = join(import.meta.dirname, '../../dist/scripts/ops/ledger.js');
let pool: Pool;
let url: string;
let drop: () => Promise<void>;
let boundary: Date;

const outcome = (reference: string, type: string, state: string, at: number): LedgerEventInput => ({
  eventId: randomUUID(),
  type,
  data: {
    reference,
    provider: 'paystack',
    outcome: state,
    state,
    entitlement_status: state === 'SETTLED_CONSENSUS' ? 'UNLOCKED' : 'HELD_IN_REVIEW',
    verdict: state === 'SETTLED_CONSENSUS' ? 'cleared' : 'clearing',
    trigger: 'sweeper_orphaned',
    provider_status: null,
    detail: null,
    checks: [],
    expected: { amount_minor: 500_000, currency: 'NGN', user_id: 'u', entitlement: 'pro' },
    observed: { amount_minor: null, charged_amount_minor: null, currency: null, provider_transaction_id: null },
    note: 'commas, "quotes" and\nnew lines survive',
    decided_at: at,
  },
  metadata: { correlationId: `corr-${reference}`, causationId: randomUUID() },
});

function cli(args: string[], input?: { shell: string }, extraEnv: NodeJS.ProcessEnv = {}) {
  const env = { ...process.env, DATABASE_URL: url, LEDGER_STORE: 'postgres', ...extraEnv };
  const result = input
    ? spawnSync('bash', ['-o', 'pipefail', '-c', `node ${CLI} ${args.join(' ')} ${input.shell}`], { env, encoding: 'utf8' })
    : spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error('dist/scripts/ops/ledger.js is missing: run "npm run build" first');
  const database = await createTestDatabase('settle_ledger_cli');
  url = database.url;
  drop = database.drop;
  pool = createPool(url, 2);
  await migrateSchemas(pool, [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  const ledger = new PostgresLedger(pool);
  for (let i = 0; i < 20; i++) {
    const reference = `ref_cli_${i}`;
    await ledger.append(`transaction-${reference}`, [outcome(reference, 'PaymentHeldInReview', 'RECOVERING', 1_000 + i)], 'no_stream');
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  boundary = new Date();
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 0; i < 10; i++) {
    const reference = `ref_cli_${i}`;
    await ledger.append(`transaction-${reference}`, [outcome(reference, 'TransactionSettled', 'SETTLED_CONSENSUS', 2_000 + i)], 0);
  }
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

describe('settle ledger', () => {
  it('replays everything as JSON Lines in global order, with only events on standard output', () => {
    const { code, stdout, stderr } = cli(['replay']);
    expect(code).toBe(0);
    const events = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events).toHaveLength(30);
    expect(events.map((e) => e.position)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(events[0]).toMatchObject({ stream_id: 'transaction-ref_cli_0', revision: 0, event_type: 'PaymentHeldInReview' });
    expect(events[0].stream_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(events[0].data.note).toBe('commas, "quotes" and\nnew lines survive');
    expect(stderr).toMatch(/replayed 30 events/);
  });

  it('replays one transaction, from a position, and a time range', () => {
    const one = cli(['replay', '--reference', 'ref_cli_3'])
      .stdout.trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(one.map((e) => [e.event_type, e.revision])).toEqual([
      ['PaymentHeldInReview', 0],
      ['TransactionSettled', 1],
    ]);
    const fromPosition = cli(['replay', '--from', '25'])
      .stdout.trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(fromPosition.map((e) => e.position)).toEqual([26, 27, 28, 29, 30]);
    const later = cli(['replay', '--since', boundary.toISOString()])
      .stdout.trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(later).toHaveLength(10);
    expect(later.every((e) => e.event_type === 'TransactionSettled')).toBe(true);
    const earlier = cli(['replay', '--until', boundary.toISOString()]).stdout.trimEnd().split('\n');
    expect(earlier).toHaveLength(20);
  });

  it('exports CSV for auditors that a CSV reader reads back exactly', () => {
    const { code, stdout } = cli(['export', '--format', 'csv']);
    expect(code).toBe(0);
    const rows = parse<Record<string, string>>(stdout, { columns: true });
    expect(rows).toHaveLength(30);
    expect(Object.keys(rows[0]!)).toEqual([
      'position',
      'recorded_at',
      'stream_id',
      'revision',
      'event_id',
      'event_type',
      'stream_hash',
      'global_hash',
      'data',
      'metadata',
    ]);
    expect(JSON.parse(rows[0]!.data!).note).toBe('commas, "quotes" and\nnew lines survive');
    const jsonl = cli(['export'])
      .stdout.trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.global_hash)).toEqual(jsonl.map((e) => e.global_hash));
  });

  it('treats a reader that stops early (| head -1) as a normal end', () => {
    const { code, stdout, stderr } = cli(['replay'], { shell: '| head -1' });
    expect(code).toBe(0);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/EPIPE|Error/);
  });

  it('refuses bad options with a usage error (exit 2)', () => {
    expect(cli(['replay', '--format', 'xml'])).toMatchObject({ code: 2, stdout: '' });
    expect(cli(['replay', '--since', 'yesterday'])).toMatchObject({ code: 2 });
    expect(cli(['frobnicate'])).toMatchObject({ code: 2 });
    // LEDGER_STORE picks the store; KurrentDB needs its connection string, and says so.
    const unconfigured = cli(['verify'], undefined, { LEDGER_STORE: 'kurrentdb', KURRENTDB_CONNECTION_STRING: '' });
    expect(unconfigured).toMatchObject({ code: 2, stdout: '' });
    expect(unconfigured.stderr).toContain('KURRENTDB_CONNECTION_STRING is required when LEDGER_STORE=kurrentdb');
  });

  it('rebuilds the read model from the ledger alone', async () => {
    const { code, stderr } = cli(['rebuild-read-models']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/from 30 ledger events: 20 transaction_status rows, 0 entitlements rows/);
    const { rows } = await pool.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM read_model.transaction_status GROUP BY state ORDER BY state',
    );
    expect(rows).toEqual([
      { state: 'RECOVERING', n: 10 },
      { state: 'SETTLED_CONSENSUS', n: 10 },
    ]);
  });

  it('does not take the head on trust: a head wound back is a break, not a shorter ledger', async () => {
    const { rows } = await pool.query<{ position: number; global_hash: string }>('SELECT position, global_hash FROM ledger.head');
    const head = rows[0]!;
    await expect(pool.query('UPDATE ledger.head SET position = 10')).rejects.toThrow(/only moves forward/);
    await withTriggersOff(pool, 'UPDATE ledger.head SET position = 10');
    const rewound = cli(['verify']);
    expect(rewound.code).toBe(1);
    expect(rewound.stderr).toMatch(/BROKEN at position 10 \(ledger head revision -1\): HEAD_MISMATCH/);
    await withTriggersOff(pool, `UPDATE ledger.head SET position = ${head.position}, global_hash = '${head.global_hash}'`);
    expect(cli(['verify']).code).toBe(0);
  });

  it('verifies both chains, and after tampering reports the first break (exit 1)', async () => {
    const ok = cli(['verify']);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/verified 30 events after position 0 up to the head at 30: both chains hold/);
    expect(cli(['verify', '--from', '10']).stderr).toMatch(/verified 20 events after position 10 up to the head at 30: both chains hold/);
    await withTriggersOff(pool, `UPDATE ledger.events SET data = jsonb_set(data, '{expected,amount_minor}', '1') WHERE position = 17`);
    const broken = cli(['verify']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/BROKEN at position 17 \(transaction-ref_cli_16 revision 0\): STREAM_HASH_MISMATCH/);
    expect(broken.stdout).toBe('');
    // From a checkpoint, a stream that began before it continues from its stored hash, so an
    // edit of its later event is still found.
    await withTriggersOff(pool, `UPDATE ledger.events SET metadata = jsonb_set(metadata, '{correlationId}', '"forged"') WHERE position = 27`);
    expect(cli(['verify', '--from', '25'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/BROKEN at position 27 \(transaction-ref_cli_6 revision 1\): STREAM_HASH_MISMATCH/),
    });
  });
});

describe('settle ledger over entitlement streams', () => {
  let grantsUrl: string;
  let grantsPool: Pool;
  let dropGrants: () => Promise<void>;
  const user = 'user:42/ü';

  beforeAll(async () => {
    const database = await createTestDatabase('settle_ledger_cli_grants');
    grantsUrl = database.url;
    dropGrants = database.drop;
    grantsPool = createPool(grantsUrl, 2);
    await migrateSchemas(grantsPool, [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
    const ledger = new PostgresLedger(grantsPool);
    const stream = entitlementStream(user, 'pro');
    // Grants as the projector writes them: decided on the stream's history, appended at its revision.
    for (const [i, settledAt] of [Date.parse('2027-01-31T10:00:00Z'), Date.parse('2027-02-10T10:00:00Z')].entries()) {
      const state = foldEntitlement((await ledger.readStream(stream)).map(entitlementEventOf));
      const [grant] = decideGrant(
        {
          type: 'GrantEntitlement',
          data: { eventId: randomUUID(), userId: user, entitlement: 'pro', reference: `ref_${i}`, accessPeriod: parseAccessPeriod('P1M'), settledAt },
        },
        state,
      );
      await ledger.append(
        stream,
        [entitlementLedgerEvent(grant!, { settlementEventId: randomUUID(), correlationId: `corr-${i}` })],
        expectedAfter(state.grants),
      );
    }
  });

  afterAll(async () => {
    await grantsPool?.end();
    await dropGrants?.();
  });

  const grantsCli = (args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: grantsUrl }, encoding: 'utf8' });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it("replays one user's grants, verifies their chains and rebuilds read_model.entitlements", async () => {
    const replayed = grantsCli(['replay', '--user', user, '--entitlement', 'pro']);
    expect(replayed.code).toBe(0);
    const events = replayed.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.event_type, e.data.event, e.data.expires_at])).toEqual([
      ['EntitlementGranted', 'subscription_started', '2027-02-28T10:00:00.000Z'],
      ['EntitlementGranted', 'subscription_renewed', '2027-03-28T10:00:00.000Z'],
    ]);
    expect(grantsCli(['replay', '--user', user]).code).toBe(2);
    expect(grantsCli(['verify'])).toMatchObject({ code: 0, stderr: expect.stringMatching(/verified 2 events/) });
    const rebuilt = grantsCli(['rebuild-read-models']);
    expect(rebuilt).toMatchObject({ code: 0, stderr: expect.stringMatching(/0 transaction_status rows, 1 entitlements rows/) });
    const { rows } = await grantsPool.query('SELECT user_id, entitlement, expires_at, grants, last_event FROM read_model.entitlements');
    expect(rows).toEqual([
      { user_id: user, entitlement: 'pro', expires_at: new Date('2027-03-28T10:00:00.000Z'), grants: 2, last_event: 'subscription_renewed' },
    ]);
  });
});
