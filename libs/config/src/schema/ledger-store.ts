import { z } from 'zod';
import { Secret } from '../secret.js';
import { sharedEnv, workerTuning } from './shared.js';

/** The stores the ledger can live in (docs/ledger.md, "One port, two stores"). */
export const LEDGER_STORES = ['postgres', 'kurrentdb'] as const;

/** Where the ledger lives: read by the projector, `./settle ledger` and the read-model rebuild. */
const ledgerStoreFields = {
  LEDGER_STORE: z
    .enum(LEDGER_STORES)
    .default('postgres')
    .meta({ description: '`postgres` (the `ledger` schema of DATABASE_URL, the default) or `kurrentdb` (EventStoreDB/KurrentDB).' }),
  KURRENTDB_CONNECTION_STRING: z
    .string()
    .trim()
    .optional()
    .meta({ description: 'For example `kurrentdb://127.0.0.1:2113?tls=false`; required when LEDGER_STORE=kurrentdb. May hold credentials.' }),
};
const kurrentDbNeedsItsConnection = {
  check: (e: { LEDGER_STORE: string; KURRENTDB_CONNECTION_STRING?: string | undefined }) =>
    e.LEDGER_STORE !== 'kurrentdb' || Boolean(e.KURRENTDB_CONNECTION_STRING),
  params: { message: 'KURRENTDB_CONNECTION_STRING is required when LEDGER_STORE=kurrentdb', path: ['KURRENTDB_CONNECTION_STRING'] },
};

/** `LEDGER_ORIGIN`: the ledger's name in its signed checkpoints, one line without a space or a plus sign (the signed-note key name rule). */
export const ledgerOrigin = z
  .string()
  .trim()
  .regex(/^[^\s+]+$/, 'no space or plus sign')
  .default('settle.dev/ledger/local');

/** The ledger store's variables alone (the ops command line). */
export const ledgerStoreEnv = z.object(ledgerStoreFields).refine(kurrentDbNeedsItsConnection.check, kurrentDbNeedsItsConnection.params);

/** Where the ledger lives, parsed. */
export type LedgerStoreConfig = { kind: 'postgres' } | { kind: 'kurrentdb'; connectionString: Secret };

/** The ledger store's configuration from its parsed variables. */
export function toLedgerStore(e: { LEDGER_STORE: (typeof LEDGER_STORES)[number]; KURRENTDB_CONNECTION_STRING?: string | undefined }): LedgerStoreConfig {
  return e.LEDGER_STORE === 'kurrentdb' ? { kind: 'kurrentdb', connectionString: new Secret(e.KURRENTDB_CONNECTION_STRING ?? '') } : { kind: 'postgres' };
}

/** One entitlement's access policy (docs/delivery.md, "Access follows the money"); a field left out keeps the default. */
const accessPolicy = z.strictObject({
  partialRefund: z.enum(['keep', 'revoke']).optional(),
  disputeOpened: z.enum(['keep', 'suspend']).optional(),
});

/** `ACCESS_POLICIES`: a JSON object of access policies by entitlement name. */
const accessPolicies = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text.trim() === '') return {};
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'ACCESS_POLICIES must be a JSON object such as {"pro-monthly":{"partialRefund":"revoke"}}' });
      return z.NEVER;
    }
    const parsed = z.record(z.string().min(1), accessPolicy).safeParse(json);
    if (!parsed.success) {
      ctx.addIssue({
        code: 'custom',
        message: 'ACCESS_POLICIES: each entitlement takes partialRefund (keep|revoke) and disputeOpened (keep|suspend), nothing else',
      });
      return z.NEVER;
    }
    return parsed.data;
  });

export const projectorEnv = sharedEnv
  .extend(workerTuning({ poolSize: 10, partitionsConcurrency: 6 }))
  .extend(ledgerStoreFields)
  .extend({
    LEDGER_ORIGIN: ledgerOrigin.meta({
      description:
        'The ledger\'s name in its signed checkpoints and their key, `settle.dev/ledger/<deployment>` (docs/ledger.md, "Checkpoints"): one per deployment, never reused, so a checkpoint of one ledger cannot pass for another\'s.',
    }),
    LEDGER_CHECKPOINT_INTERVAL_MS: z.coerce.number().int().min(1_000).default(60_000).meta({
      description: 'How often the projector signs a checkpoint of the ledger when anything but checkpoints was appended since the last, milliseconds.',
    }),
    LEDGER_CHECKPOINT_DIR: z.string().trim().optional().meta({
      description:
        'The folder the signed checkpoints and the public keys are written to, once each; point it at write-once storage (docs/ledger.md, "Where checkpoints go"). Never created by Settle: unset or missing, checkpoints are still made and published on Kafka, and `settle_ledger_checkpoint_sink_up` is 0 (an alert).',
    }),
    ACCESS_POLICIES: accessPolicies.meta({
      description:
        'What a partial refund and an opened dispute do to the access a payment bought, per entitlement, as JSON: `{"pro-monthly":{"partialRefund":"revoke","disputeOpened":"suspend"}}`. Unset or unlisted: keep both (a full refund, a reversal and a lost dispute always revoke; docs/delivery.md).',
    }),
  })
  .refine(kurrentDbNeedsItsConnection.check, kurrentDbNeedsItsConnection.params);
