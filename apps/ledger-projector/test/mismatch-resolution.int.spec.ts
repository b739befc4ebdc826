/**
 * Resolving a State Mismatch in the ledger (docs/state-machine.md, "Resolving a State Mismatch"),
 * against real PostgreSQL through the real PostgreSQL ledger writer and the real schema registry
 * (the ledger outbox checks every message against its schema): the projector's class fed
 * `ConsensusResult`, `MismatchResolutionRequested` and `MoneyMovementsObserved` messages as the
 * consumer loop hands them over.
 *
 * - accept_as_paid appends `SettledByOverride` (both people, the difference accepted) and its
 *   grant, projects the read model and the outbox in the same transaction, and a redelivery
 *   appends nothing new;
 * - the rules refuse what they must, as failed items carrying the rule's code (dead-letter topic);
 * - refund_due closes itself once the provider shows the captured money returned, and at once when
 *   it already was;
 * - a payment accepted as paid loses its grant to a full refund, as a settled one does.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  entitlementStream,
  findEntitlements,
  findTransactionStatus,
  LEDGER_MIGRATIONS,
  PostgresLedger,
  PostgresLedgerWriter,
  READ_MODEL_MIGRATIONS,
  rebuildReadModels,
  transactionStream,
  verifyLedger,
  type RecordedLedgerEvent,
} from '@settle/ledger';
import {
  AvroCodec,
  Outbox,
  PermanentMessageError,
  topicNames,
  type BatchItem,
  type ConsensusResultV1,
  type MismatchResolutionRequestedV1,
  type MoneyMovementObservationV1,
  type TypedEvent,
} from '@settle/messaging';
import { createLogger, createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { ProjectionService } from '../src/projection.service.js';

let pool: Pool;
let drop: () => Promise<void>;
let outbox: Outbox;

beforeAll(async () => {
  const database = await createTestDatabase('settle_mismatch_resolution');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchemas(pool, [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  const topics = topicNames(uniqueTopicPrefix('mismatch'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  // What the ledger projector produces (apps/ledger-projector/src/ledger-projector.module.ts).
  await codec.registerAll(['SettlementRecorded', 'SettledByOverride', 'MoneyMovementRecorded', 'EntitlementGranted', 'EntitlementAccessChanged']);
  outbox = new Outbox('ledger', topics, codec);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

const projector = () =>
  new ProjectionService(new PostgresLedgerWriter(pool, new PostgresLedger(pool), outbox, { wake: () => undefined }), createLogger('mismatch', 'fatal'));

/** Registered: NGN 5 000.00; the provider confirmed NGN 4 500.00 (an underpayment of 50 000 kobo). */
const REGISTERED = 500_000;
const PAID = 450_000;
const DETECTED_AT = Date.parse('2027-03-01T09:00:00.000Z');
const DECIDED_AT = Date.parse('2027-03-05T10:00:00.000Z');
const DAY = 86_400_000;

/** A fresh payment: its reference and user. */
function payment(): { reference: string; user: string } {
  const id = randomUUID().slice(0, 8);
  return { reference: `ref_mm_${id}`, user: `user-mm-${id}` };
}

const batch = (...events: TypedEvent[]): BatchItem[] =>
  events.map((event, i) => ({ event, context: { topic: 't', partition: 0, offset: String(i), key: null, timestamp: 0, headers: {} } }));

/** A consensus result whose outcome is `state` for a checkout of REGISTERED NGN buying one month of `pro`. */
function outcome(p: { reference: string; user: string }, state: 'STATE_MISMATCH' | 'SETTLED_CONSENSUS', observedMinor: number): TypedEvent {
  const settled = state === 'SETTLED_CONSENSUS';
  const payload: ConsensusResultV1 = {
    event_id: randomUUID(),
    occurred_at: DETECTED_AT,
    correlation_id: `corr-${p.reference}`,
    causation_id: randomUUID(),
    reference: p.reference,
    provider: 'paystack',
    trigger: 'webhook_received',
    verdict: 'cleared',
    provider_status: 'success',
    detail: null,
    outcome: state,
    ledger_event_type: settled ? 'TransactionSettled' : 'StateMismatchDetected',
    ledger_expected_revision: 0,
    state_before: 'PENDING',
    state_after: state,
    entitlement_status: settled ? 'UNLOCKED' : 'LOCKED',
    checks: [
      {
        check: 'amount',
        passed: observedMinor === REGISTERED,
        code: observedMinor === REGISTERED ? null : 'AMOUNT_MISMATCH',
        expected: String(REGISTERED),
        observed: String(observedMinor),
      },
    ],
    amount_minor: REGISTERED,
    currency: 'NGN',
    user_id: p.user,
    entitlement: 'pro',
    observed_amount_minor: observedMinor,
    charged_amount_minor: null,
    observed_currency: 'NGN',
    provider_transaction_id: `ps_${p.reference}`,
    access_period: 'P1M',
  };
  return { type: 'ConsensusResult', payload };
}

const mismatch = (p: { reference: string; user: string }) => outcome(p, 'STATE_MISMATCH', PAID);

/** Two people accepted it as paid (the console's approved proposal, through ingestion). */
function acceptAsPaid(reference: string, fields: Partial<MismatchResolutionRequestedV1> = {}): TypedEvent {
  return {
    type: 'MismatchResolutionRequested',
    payload: {
      event_id: randomUUID(),
      occurred_at: DECIDED_AT,
      correlation_id: `corr-${reference}`,
      reference,
      resolution: 'accept_as_paid',
      access_period: 'P1M',
      proposal_id: randomUUID(),
      proposed_by: 'ops@example.com',
      approved_by: 'cfo@example.com',
      closed_by: null,
      note: 'within the 10% tolerance agreed with the merchant',
      ...fields,
    },
  };
}

/** An admin closed it as to be refunded. */
function refundDue(reference: string, at = DECIDED_AT): TypedEvent {
  return {
    type: 'MismatchResolutionRequested',
    payload: {
      event_id: randomUUID(),
      occurred_at: at,
      correlation_id: `corr-${reference}`,
      reference,
      resolution: 'refund_due',
      access_period: 'P1M',
      proposal_id: null,
      proposed_by: null,
      approved_by: null,
      closed_by: 'lead@example.com',
      note: 'the customer wants the money back',
    },
  };
}

/** A refund of the payment as the provider shows it. */
function refund(
  reference: string,
  providerId: string,
  amountMinor: number,
  status: 'pending' | 'succeeded' | 'failed' = 'succeeded',
): MoneyMovementObservationV1 {
  return {
    kind: 'refund',
    provider_id: providerId,
    payment_reference: reference,
    amount_minor: amountMinor,
    currency: 'NGN',
    provider_status: status === 'succeeded' ? 'processed' : status,
    status,
    reason: null,
    created_at: DECIDED_AT + DAY,
  };
}

/** What the verifier read of the payment's money, at `at`. */
function moneyRead(reference: string, at: number, movements: MoneyMovementObservationV1[]): TypedEvent {
  const eventId = randomUUID();
  return {
    type: 'MoneyMovementsObserved',
    payload: {
      event_id: eventId,
      occurred_at: at,
      correlation_id: `corr-${reference}`,
      causation_id: randomUUID(),
      reference,
      provider: 'paystack',
      trigger: 'admin_reconciliation',
      verification_id: eventId,
      movements,
      skipped: 0,
    },
  };
}

const ledger = () => new PostgresLedger(pool);
const txStream = (reference: string) => ledger().readStream(transactionStream(reference));
const accessStream = (user: string) => ledger().readStream(entitlementStream(user, 'pro'));
const types = (events: readonly RecordedLedgerEvent[]) => events.map((e) => e.type);
/** The failed items as [index, code], and each one a permanent error (the dead-letter topic). */
const refusals = (failed: Array<{ index: number; error: unknown }>) =>
  failed.map((f) => [f.index, f.error instanceof PermanentMessageError ? f.error.code : `not permanent: ${String(f.error)}`]);

/** The ledger outbox rows of a reference (by the payload's `reference`), oldest first. */
async function outboxOf(reference: string): Promise<Array<{ type: string; key: string; payload: Record<string, unknown> }>> {
  const { rows } = await pool.query<{ event_type: string; message_key: string; payload: Record<string, unknown> }>(
    `SELECT event_type, message_key, payload FROM ledger.outbox WHERE payload->>'reference' = $1 ORDER BY id`,
    [reference],
  );
  return rows.map((r) => ({ type: r.event_type, key: r.message_key, payload: r.payload }));
}

describe('accept_as_paid: SettledByOverride and its grant', () => {
  it('records both people and the difference accepted, grants the entitlement, and projects the read model and the outbox in the same commit', async () => {
    const p = payment();
    const service = projector();
    expect(await service.handleBatch(batch(mismatch(p)))).toEqual([]);
    expect((await findTransactionStatus(pool, p.reference))?.entitlementStatus).toBe('LOCKED');
    expect(await accessStream(p.user)).toEqual([]);

    const accept = acceptAsPaid(p.reference);
    const request = accept.payload as MismatchResolutionRequestedV1;
    expect(await service.handleBatch(batch(accept))).toEqual([]);

    const tx = await txStream(p.reference);
    expect(types(tx)).toEqual(['StateMismatchDetected', 'SettledByOverride']);
    const override = tx[1]!;
    expect(override.revision).toBe(1);
    expect(override.data).toMatchObject({
      reference: p.reference,
      provider: 'paystack',
      user_id: p.user,
      entitlement: 'pro',
      request_id: request.event_id,
      proposal_id: request.proposal_id,
      proposed_by: 'ops@example.com',
      approved_by: 'cfo@example.com',
      closed_by: null,
      note: 'within the 10% tolerance agreed with the merchant',
      expected: { amount_minor: REGISTERED, currency: 'NGN' },
      observed: { amount_minor: PAID, currency: 'NGN' },
      difference_minor: REGISTERED - PAID,
      access_period: 'P1M',
      decided_at: DECIDED_AT,
      returned_minor: null,
    });
    expect(override.metadata).toMatchObject({ correlationId: `corr-${p.reference}`, causationId: request.event_id });
    // The outcome is never changed: the payment stays in State Mismatch.
    expect(tx[0]!.data).toMatchObject({ state: 'STATE_MISMATCH', entitlement_status: 'LOCKED' });

    // The grant: on the user's entitlement stream, settled at the decision, caused by the override.
    const access = await accessStream(p.user);
    expect(types(access)).toEqual(['EntitlementGranted']);
    expect(access[0]!.data).toMatchObject({
      reference: p.reference,
      event: 'subscription_started',
      user_id: p.user,
      entitlement: 'pro',
      access_period: 'P1M',
      settled_at: '2027-03-05T10:00:00.000Z',
      expires_at: '2027-04-05T10:00:00.000Z',
      settlement_event_id: override.eventId,
    });
    expect(access[0]!.metadata.causationId).toBe(override.eventId);
    expect(access[0]!.eventId).not.toBe(override.eventId);

    // The read model, in the same transaction: the state stays, the resolution and the access follow.
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({
      state: 'STATE_MISMATCH',
      entitlementStatus: 'UNLOCKED',
      resolution: 'accepted_as_paid',
      moneyState: 'none',
      returnedMinor: 0,
    });
    const [entitlement] = await findEntitlements(pool, p.user);
    expect(entitlement).toMatchObject({ entitlement: 'pro', grants: 1, lastReference: p.reference, expiresAt: new Date('2027-04-05T10:00:00.000Z') });

    // The outbox: the outcome's record, the settlement by override (not a SettlementRecorded), the grant keyed by user.
    const out = await outboxOf(p.reference);
    expect(out.map((m) => m.type)).toEqual(['SettlementRecorded', 'SettledByOverride', 'EntitlementGranted']);
    expect(out[1]).toMatchObject({
      key: p.reference,
      payload: {
        reference: p.reference,
        provider: 'paystack',
        user_id: p.user,
        entitlement: 'pro',
        amount_minor: REGISTERED,
        currency: 'NGN',
        observed_amount_minor: PAID,
        observed_currency: 'NGN',
        difference_minor: REGISTERED - PAID,
        proposal_id: request.proposal_id,
        proposed_by: 'ops@example.com',
        approved_by: 'cfo@example.com',
        note: 'within the 10% tolerance agreed with the merchant',
        occurred_at: DECIDED_AT,
        ledger_stream: transactionStream(p.reference),
        ledger_revision: 1,
        ledger_position: override.position,
      },
    });
    expect(out[2]).toMatchObject({
      key: p.user,
      payload: {
        event_id: access[0]!.eventId,
        event: 'subscription_started',
        expires_at: '2027-04-05T10:00:00.000Z',
        ledger_stream: entitlementStream(p.user, 'pro'),
      },
    });
    expect((await verifyLedger(ledger())).broken).toBeNull();
  });

  it('the same request again (a redelivery, in a later batch or twice in one) appends nothing and publishes nothing new', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    const accept = acceptAsPaid(p.reference);
    expect(await service.handleBatch(batch(accept))).toEqual([]);
    const tx = await txStream(p.reference);
    const access = await accessStream(p.user);
    const out = await outboxOf(p.reference);

    expect(await service.handleBatch(batch(accept))).toEqual([]);
    expect(await projector().handleBatch(batch(accept, accept))).toEqual([]);
    expect(await projector().handle(accept, { topic: 't', partition: 0, offset: '9', key: p.reference, timestamp: 0, headers: {} })).toBeUndefined();

    expect((await txStream(p.reference)).map((e) => e.eventId)).toEqual(tx.map((e) => e.eventId));
    expect((await accessStream(p.user)).map((e) => e.eventId)).toEqual(access.map((e) => e.eventId));
    expect(await outboxOf(p.reference)).toEqual(out);
    expect((await findTransactionStatus(pool, p.reference))?.resolution).toBe('accepted_as_paid');
  });

  it('an accept that reads no access period records the override and grants nothing: the entitlement status stays locked', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    expect(await service.handleBatch(batch(acceptAsPaid(p.reference, { access_period: null })))).toEqual([]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'SettledByOverride']);
    expect(await accessStream(p.user)).toEqual([]);
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({ resolution: 'accepted_as_paid', entitlementStatus: 'LOCKED' });
  });

  it('accepting one with a dispute open is refused (MISMATCH.DISPUTE_OPEN); closing it as refund due is not', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    const dispute: MoneyMovementObservationV1 = {
      ...refund(p.reference, 'dp_open', PAID),
      kind: 'dispute',
      status: 'open',
      provider_status: 'awaiting-merchant-feedback',
      reason: 'fraudulent',
    };
    expect(await service.handleBatch(batch(moneyRead(p.reference, DECIDED_AT, [dispute])))).toEqual([]);
    expect(refusals(await service.handleBatch(batch(acceptAsPaid(p.reference))))).toEqual([[0, 'MISMATCH.DISPUTE_OPEN']]);
    expect(await accessStream(p.user)).toEqual([]);
    expect(await service.handleBatch(batch(refundDue(p.reference)))).toEqual([]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'DisputeOpened', 'MismatchRefundDue']);
  });

  it('the read model rebuilt from the ledger alone keeps the resolutions and the access they unlocked', async () => {
    const accepted = payment();
    const due = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(accepted), mismatch(due)));
    expect(await service.handleBatch(batch(acceptAsPaid(accepted.reference), refundDue(due.reference)))).toEqual([]);
    const snapshot = async () =>
      (
        await pool.query(
          `SELECT reference, state, entitlement_status, resolution, money_state, returned_minor FROM read_model.transaction_status
            WHERE reference = ANY($1) ORDER BY reference`,
          [[accepted.reference, due.reference]],
        )
      ).rows;
    const live = await snapshot();
    expect(live.map((r) => [r.reference, r.state, r.entitlement_status, r.resolution])).toEqual(
      [
        [accepted.reference, 'STATE_MISMATCH', 'UNLOCKED', 'accepted_as_paid'],
        [due.reference, 'STATE_MISMATCH', 'LOCKED', 'refund_due'],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    await rebuildReadModels(pool, ledger());
    expect(await snapshot()).toEqual(live);
  });
});

describe('requests the rules refuse go to the dead-letter topic with the rule’s code, recording nothing', () => {
  it('accepting a payment that settled by consensus: MISMATCH.NOT_STATE_MISMATCH', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(outcome(p, 'SETTLED_CONSENSUS', REGISTERED)));
    const grantsBefore = await accessStream(p.user);
    expect(types(grantsBefore)).toEqual(['EntitlementGranted']);
    const failed = await service.handleBatch(batch(acceptAsPaid(p.reference)));
    expect(refusals(failed)).toEqual([[0, 'MISMATCH.NOT_STATE_MISMATCH']]);
    expect(types(await txStream(p.reference))).toEqual(['TransactionSettled']);
    expect(await accessStream(p.user)).toEqual(grantsBefore);
    expect((await outboxOf(p.reference)).map((m) => m.type)).toEqual(['SettlementRecorded', 'EntitlementGranted']);
    expect((await findTransactionStatus(pool, p.reference))?.resolution).toBeNull();
  });

  it('a payment the ledger holds nothing of: MISMATCH.NOT_STATE_MISMATCH, and handle() throws it', async () => {
    const p = payment();
    expect(refusals(await projector().handleBatch(batch(refundDue(p.reference))))).toEqual([[0, 'MISMATCH.NOT_STATE_MISMATCH']]);
    await expect(
      projector().handle(acceptAsPaid(p.reference), { topic: 't', partition: 0, offset: '0', key: null, timestamp: 0, headers: {} }),
    ).rejects.toMatchObject({ code: 'MISMATCH.NOT_STATE_MISMATCH' });
    expect(await txStream(p.reference)).toEqual([]);
  });

  it('accepting one closed as refund due: MISMATCH.ALREADY_RESOLVED; nothing granted', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    expect(await service.handleBatch(batch(refundDue(p.reference)))).toEqual([]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'MismatchRefundDue']);

    const failed = await service.handleBatch(batch(acceptAsPaid(p.reference)));
    expect(refusals(failed)).toEqual([[0, 'MISMATCH.ALREADY_RESOLVED']]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'MismatchRefundDue']);
    expect(await accessStream(p.user)).toEqual([]);
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({ resolution: 'refund_due', entitlementStatus: 'LOCKED' });
    // Other resolution facts publish nothing.
    expect((await outboxOf(p.reference)).map((m) => m.type)).toEqual(['SettlementRecorded']);
  });

  it('two requests of one batch: the first recorded, the other refused; the rest of the batch commits', async () => {
    const p = payment();
    const other = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p), mismatch(other)));
    const failed = await service.handleBatch(batch(refundDue(p.reference), acceptAsPaid(p.reference), acceptAsPaid(other.reference)));
    expect(refusals(failed)).toEqual([[1, 'MISMATCH.ALREADY_RESOLVED']]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'MismatchRefundDue']);
    expect(types(await txStream(other.reference))).toEqual(['StateMismatchDetected', 'SettledByOverride']);
    expect(types(await accessStream(other.user))).toEqual(['EntitlementGranted']);
    expect(await accessStream(p.user)).toEqual([]);
  });

  it('accepting one whose money went back in part: MISMATCH.MONEY_RETURNED', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    expect(await service.handleBatch(batch(moneyRead(p.reference, DECIDED_AT - DAY, [refund(p.reference, 'rfnd_part', 100_000)])))).toEqual([]);
    expect(refusals(await service.handleBatch(batch(acceptAsPaid(p.reference))))).toEqual([[0, 'MISMATCH.MONEY_RETURNED']]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'RefundRecorded']);
    expect(await accessStream(p.user)).toEqual([]);
  });
});

describe('refund_due closes itself once the provider shows the captured money returned', () => {
  it('a succeeded full refund of what was captured appends MismatchRefundDueClosed after it: resolution refunded', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    const close = refundDue(p.reference);
    expect(await service.handleBatch(batch(close))).toEqual([]);
    let tx = await txStream(p.reference);
    expect(types(tx)).toEqual(['StateMismatchDetected', 'MismatchRefundDue']);
    expect(tx[1]!.data).toMatchObject({
      closed_by: 'lead@example.com',
      note: 'the customer wants the money back',
      request_id: (close.payload as MismatchResolutionRequestedV1).event_id,
      proposed_by: null,
      approved_by: null,
      difference_minor: null,
    });
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({ state: 'STATE_MISMATCH', resolution: 'refund_due', entitlementStatus: 'LOCKED' });

    const refundedAt = DECIDED_AT + 2 * DAY;
    const read = moneyRead(p.reference, refundedAt, [refund(p.reference, 'rfnd_full', PAID)]);
    expect(await service.handleBatch(batch(read))).toEqual([]);
    tx = await txStream(p.reference);
    expect(types(tx)).toEqual(['StateMismatchDetected', 'MismatchRefundDue', 'RefundRecorded', 'MismatchRefundDueClosed']);
    expect(tx[2]!.data).toMatchObject({ amount_minor: PAID, full: true, money_state: 'refunded', returned_minor: PAID });
    expect(tx[3]!.data).toMatchObject({ returned_minor: PAID, decided_at: refundedAt, request_id: (close.payload as MismatchResolutionRequestedV1).event_id });
    expect(tx[3]!.metadata.causationId).toBe((read.payload as { event_id: string }).event_id);
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({
      state: 'STATE_MISMATCH',
      resolution: 'refunded',
      moneyState: 'refunded',
      returnedMinor: PAID,
      entitlementStatus: 'LOCKED',
    });
    // Never granted, so nothing to revoke.
    expect(await accessStream(p.user)).toEqual([]);

    // The read redelivered, and the close requested again: nothing new.
    expect(await service.handleBatch(batch(read))).toEqual([]);
    expect(await service.handleBatch(batch(close))).toEqual([]);
    expect(await service.handleBatch(batch(refundDue(p.reference)))).toEqual([]);
    expect(types(await txStream(p.reference))).toHaveLength(4);
    expect((await findTransactionStatus(pool, p.reference))?.resolution).toBe('refunded');
  });

  it('a partial refund leaves it refund_due; the rest of the money returned closes it', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    await service.handleBatch(batch(refundDue(p.reference)));
    expect(await service.handleBatch(batch(moneyRead(p.reference, DECIDED_AT + DAY, [refund(p.reference, 'rfnd_1', 200_000)])))).toEqual([]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'MismatchRefundDue', 'RefundRecorded']);
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({
      resolution: 'refund_due',
      moneyState: 'partially_refunded',
      returnedMinor: 200_000,
    });

    // A pending refund of the rest returns nothing yet.
    await service.handleBatch(batch(moneyRead(p.reference, DECIDED_AT + 2 * DAY, [refund(p.reference, 'rfnd_2', PAID - 200_000, 'pending')])));
    expect(types(await txStream(p.reference))).not.toContain('MismatchRefundDueClosed');
    expect((await findTransactionStatus(pool, p.reference))?.resolution).toBe('refund_due');

    expect(await service.handleBatch(batch(moneyRead(p.reference, DECIDED_AT + 3 * DAY, [refund(p.reference, 'rfnd_2', PAID - 200_000)])))).toEqual([]);
    const tx = await txStream(p.reference);
    expect(types(tx).at(-1)).toBe('MismatchRefundDueClosed');
    expect(tx.at(-1)!.data).toMatchObject({ returned_minor: PAID });
    expect(types(tx).filter((t) => t === 'MismatchRefundDueClosed')).toHaveLength(1);
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({ resolution: 'refunded', returnedMinor: PAID });
  });

  it('a full refund recorded before refund_due: the close records both facts at once', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    expect(await service.handleBatch(batch(moneyRead(p.reference, DECIDED_AT - DAY, [refund(p.reference, 'rfnd_early', PAID)])))).toEqual([]);
    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'RefundRecorded']);
    expect((await findTransactionStatus(pool, p.reference))?.resolution).toBeNull();

    const close = refundDue(p.reference);
    expect(await service.handleBatch(batch(close))).toEqual([]);
    const tx = await txStream(p.reference);
    expect(types(tx)).toEqual(['StateMismatchDetected', 'RefundRecorded', 'MismatchRefundDue', 'MismatchRefundDueClosed']);
    expect(tx[3]!.data).toMatchObject({ returned_minor: PAID, decided_at: DECIDED_AT });
    expect(tx[3]!.metadata.causationId).toBe((close.payload as MismatchResolutionRequestedV1).event_id);
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({ resolution: 'refunded', moneyState: 'refunded', returnedMinor: PAID });

    // Redelivered: nothing new.
    expect(await projector().handleBatch(batch(close))).toEqual([]);
    expect(await txStream(p.reference)).toHaveLength(4);
  });
});

describe('an accepted payment’s grant stands like a settled one’s', () => {
  it('a full refund after accept_as_paid revokes the grant; the resolution stays accepted_as_paid', async () => {
    const p = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(p)));
    expect(await service.handleBatch(batch(acceptAsPaid(p.reference)))).toEqual([]);
    const refundedAt = DECIDED_AT + 3 * DAY;
    expect(await service.handleBatch(batch(moneyRead(p.reference, refundedAt, [refund(p.reference, 'rfnd_all', PAID)])))).toEqual([]);

    expect(types(await txStream(p.reference))).toEqual(['StateMismatchDetected', 'SettledByOverride', 'RefundRecorded']);
    const access = await accessStream(p.user);
    expect(types(access)).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
    expect(access[1]!.data).toMatchObject({
      reference: p.reference,
      reason: 'refunded',
      expires_at: new Date(refundedAt).toISOString(),
      previous_expires_at: '2027-04-05T10:00:00.000Z',
    });
    const [entitlement] = await findEntitlements(pool, p.user);
    expect(entitlement?.expiresAt).toEqual(new Date(refundedAt));
    expect(await findTransactionStatus(pool, p.reference)).toMatchObject({ resolution: 'accepted_as_paid', moneyState: 'refunded', returnedMinor: PAID });
    expect((await outboxOf(p.reference)).map((m) => m.type)).toEqual([
      'SettlementRecorded',
      'SettledByOverride',
      'EntitlementGranted',
      'MoneyMovementRecorded',
      'EntitlementAccessChanged',
    ]);
    expect((await verifyLedger(ledger())).broken).toBeNull();
  });

  it('in one batch, the facts follow the messages’ order: an acceptance then a refund grants then revokes; a refund then an acceptance refuses it', async () => {
    const accepted = payment();
    const refundedFirst = payment();
    const service = projector();
    await service.handleBatch(batch(mismatch(accepted), mismatch(refundedFirst)));
    const refundedAt = DECIDED_AT + DAY;
    const failed = await service.handleBatch(
      batch(
        acceptAsPaid(accepted.reference),
        moneyRead(accepted.reference, refundedAt, [refund(accepted.reference, 'rfnd_a', PAID)]),
        moneyRead(refundedFirst.reference, refundedAt, [refund(refundedFirst.reference, 'rfnd_b', PAID)]),
        acceptAsPaid(refundedFirst.reference),
      ),
    );
    expect(types(await txStream(accepted.reference))).toEqual(['StateMismatchDetected', 'SettledByOverride', 'RefundRecorded']);
    expect(types(await accessStream(accepted.user))).toEqual(['EntitlementGranted', 'EntitlementRevoked']);
    expect(types(await txStream(refundedFirst.reference))).toEqual(['StateMismatchDetected', 'RefundRecorded']);
    expect(await accessStream(refundedFirst.user)).toEqual([]);
    expect(refusals(failed)).toEqual([[3, 'MISMATCH.MONEY_RETURNED']]);
  });
});
