import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  isTerminal,
  literalOf,
  MISMATCH_RESOLUTION_STATES,
  PROVIDERS,
  sameCheckoutTerms,
  TRANSACTION_STATUSES,
  type CheckoutTerms,
  type ProviderName,
} from '@settle/domain';
import { findTransactionStatus, type TransactionStatusRow } from '@settle/ledger';
import { Outbox, type OutboxMessage, type OutboxRelay } from '@settle/messaging';
import { deterministicId, inTransaction, type Pool, type PoolClient } from '@settle/platform';
import { OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';
import type { RegisterCheckoutBody } from './checkout.request.js';

/** A registered checkout as ingestion stores it. */
export interface CheckoutRecord {
  reference: string;
  provider: ProviderName;
  amountMinor: number;
  currency: string;
  userId: string;
  email: string | null;
  phone: string | null;
  entitlement: string;
  /** ISO 8601 duration the payment buys; `null` for registrations made before access periods existed. */
  accessPeriod: string | null;
  requestSha256: string;
  correlationId: string;
  registeredAt: Date;
  completedAt: Date | null;
  /** Who registered it (`api_key:<key id>`, `kafka:<producer>`); `null` for registrations made before this was recorded. */
  submittedBy: string | null;
}

/** Status as `GET /v1/checkouts/{reference}` shows it. */
export interface CheckoutView {
  reference: string;
  provider: string;
  state: string;
  entitlement_status: string;
  amount: number;
  currency: string;
  entitlement: string;
  access_period: string | null;
  checks?: unknown[];
  /** What happened to the money after the payment settled (docs/state-machine.md, "The money after settlement"). */
  money_state: string;
  /** Money returned to the payer so far, minor units. */
  returned: number;
  /** A State Mismatch's resolution (docs/state-machine.md, "Resolving a State Mismatch"), `null` for none. */
  resolution: string | null;
  updated_at: string;
}

/**
 * A registration's terms in column order, for {@link termsDigest}. Whether a registration
 * repeats the stored terms is decided by the domain's `sameCheckoutTerms`, not by this digest.
 */
function checkoutTerms(body: RegisterCheckoutBody): Array<string | number | null> {
  return [
    body.provider,
    body.reference,
    body.amount,
    body.currency,
    body.user_id,
    body.customer.email ?? null,
    body.customer.phone ?? null,
    body.entitlement,
    body.access_period,
  ];
}

/**
 * Digest of a registration's terms, independent of JSON key order and whitespace, stored in
 * `ingestion.checkouts.request_sha256` for audit (what exactly was registered); no decision
 * reads it.
 */
export function termsDigest(body: RegisterCheckoutBody): string {
  return createHash('sha256')
    .update(JSON.stringify(checkoutTerms(body)))
    .digest('hex');
}

/** A stored registration's terms, for the "same reference, other terms" rule of the domain. */
export function recordTerms(record: CheckoutRecord): CheckoutTerms {
  return {
    reference: record.reference,
    provider: record.provider,
    amountMinor: record.amountMinor,
    currency: record.currency,
    userId: record.userId,
    customer: { email: record.email, phone: record.phone },
    entitlement: record.entitlement,
    accessPeriod: record.accessPeriod,
  };
}

/** A registration request's terms, for the "same reference, other terms" rule of the domain. */
export function requestedTerms(body: RegisterCheckoutBody): CheckoutTerms {
  return {
    reference: body.reference,
    provider: body.provider,
    amountMinor: body.amount,
    currency: body.currency,
    userId: body.user_id,
    customer: { email: body.customer.email, phone: body.customer.phone },
    entitlement: body.entitlement,
    accessPeriod: body.access_period,
  };
}

export type RegisterResult = { kind: 'registered' | 'same'; record: CheckoutRecord } | { kind: 'conflict' };

/**
 * Checkout registrations and completions with their outbox messages, each written in the
 * caller's transaction: one per HTTP request, one per batch of the commands topic.
 */
@Injectable()
export class CheckoutRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
  ) {}

  /**
   * Registers checkouts and enqueues their `CheckoutRegistered` in the caller's transaction, in
   * three statements whatever their count (one insert, one read of the references already
   * known, one outbox insert): a reference already known keeps its stored terms, and the domain's
   * `sameCheckoutTerms` decides between `same` and `conflict`. The caller wakes the relay after
   * its commit when any was `registered`.
   *
   * @param requests - each body with who sent it (`api_key:<key id>`, `kafka:<producer>`),
   *   stored with its row; their references must differ (a caller splits repeats into later calls).
   * @returns one result per request, in order.
   * @throws Error when two requests name the same reference.
   */
  async registerAllIn(client: PoolClient, requests: ReadonlyArray<{ body: RegisterCheckoutBody; submittedBy: string }>, now: Date): Promise<RegisterResult[]> {
    if (requests.length === 0) return [];
    const references = requests.map((r) => r.body.reference);
    if (new Set(references).size !== references.length) throw new Error('registerAllIn: each reference once per call');
    const rows = requests.map(({ body, submittedBy }) => [...checkoutTerms(body), termsDigest(body), randomUUID(), submittedBy] as const);
    const column = (i: number) => rows.map((r) => r[i]);
    const inserted = await client.query<{ reference: string; correlation_id: string }>(
      `INSERT INTO ingestion.checkouts
         (provider, reference, amount_minor, currency, user_id, customer_email, customer_phone, entitlement,
          access_period, request_sha256, correlation_id, registered_at, submitted_by)
       SELECT p, r, a, c, u, e, ph, en, ap, d, co, $12, sb
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::text[], $13::text[]) AS t(p, r, a, c, u, e, ph, en, ap, d, co, sb)
       ON CONFLICT (reference) DO NOTHING RETURNING reference, correlation_id`,
      [...Array.from({ length: 11 }, (_, i) => column(i)), now, column(11)],
    );
    const registered = new Map(inserted.rows.map((r) => [r.reference, r.correlation_id]));
    const known =
      registered.size === requests.length
        ? new Map<string, CheckoutRecord>()
        : await this.findAll(
            client,
            references.filter((r) => !registered.has(r)),
          );
    const results = requests.map(({ body, submittedBy }): RegisterResult => {
      const correlationId = registered.get(body.reference);
      if (correlationId !== undefined) {
        return { kind: 'registered', record: { ...recordOf(body, now, submittedBy), correlationId } };
      }
      const existing = known.get(body.reference);
      if (existing && sameCheckoutTerms(recordTerms(existing), requestedTerms(body))) return { kind: 'same', record: existing };
      return { kind: 'conflict' };
    });
    await this.outbox.enqueue(
      client,
      results.flatMap((result) => (result.kind === 'registered' ? [checkoutRegistered(result.record, now)] : [])),
    );
    return results;
  }

  /**
   * Marks a checkout completed (once) and enqueues `CheckoutCompleted` in the caller's
   * transaction; the caller wakes the relay after its commit when `completed`.
   *
   * @returns the record (`null` when the reference is unknown), and whether this call completed it.
   */
  async completeIn(client: PoolClient, reference: string, now: Date): Promise<{ record: CheckoutRecord | null; completed: boolean }> {
    const updated = await client.query<CheckoutRowShape>(
      `UPDATE ingestion.checkouts SET completed_at = $2 WHERE reference = $1 AND completed_at IS NULL RETURNING *`,
      [reference, now],
    );
    const row = updated.rows[0];
    if (!row) return { record: await this.find(client, reference), completed: false };
    const record = toRecord(row);
    await this.outbox.enqueue(client, [
      {
        type: 'CheckoutCompleted',
        payload: {
          event_id: deterministicId('CheckoutCompleted', reference),
          occurred_at: now.getTime(),
          correlation_id: record.correlationId,
          reference,
        },
      },
    ]);
    return { record, completed: true };
  }

  /** Runs `work` in one transaction, then wakes the relay when it asks to (it enqueued messages). */
  async inTransaction<T>(work: (client: PoolClient) => Promise<{ value: T; enqueued: boolean }>): Promise<T> {
    const { value, enqueued } = await inTransaction(this.pool, work);
    if (enqueued) this.relay.wake();
    return value;
  }

  /**
   * Waits until the read model reflects the result caused by `causationId`, or a terminal
   * state reached through another trigger meanwhile (a webhook racing the request: the
   * verifier does not query again for a terminal transaction), polling every 100 ms, at most
   * `timeoutMs` milliseconds.
   *
   * @returns the status row once it does, or `null` when the wait ran out.
   */
  async awaitResult(reference: string, causationId: string, timeoutMs: number): Promise<TransactionStatusRow | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await findTransactionStatus(this.pool, reference);
      if (status?.lastCausationId === causationId) return status;
      if (status && isTerminal(literalOf(TRANSACTION_STATUSES, status.state, 'transaction status'))) return status;
      if (Date.now() >= deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The read-model row of a reference, or `null` before any verification result. */
  status(reference: string, client: Pool | PoolClient = this.pool): Promise<TransactionStatusRow | null> {
    return findTransactionStatus(client, reference);
  }

  /** Finds the registrations of some references, by reference. */
  async findAll(client: Pool | PoolClient, references: readonly string[]): Promise<Map<string, CheckoutRecord>> {
    const { rows } = await client.query<CheckoutRowShape>('SELECT * FROM ingestion.checkouts WHERE reference = ANY($1::text[])', [references]);
    return new Map(rows.map((row) => [row.reference, toRecord(row)]));
  }

  /** Finds a registration. */
  async find(client: Pool | PoolClient, reference: string): Promise<CheckoutRecord | null> {
    const { rows } = await client.query<CheckoutRowShape>('SELECT * FROM ingestion.checkouts WHERE reference = $1', [reference]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The public status view: registration terms joined with the read model. */
  async view(reference: string): Promise<CheckoutView | null> {
    const record = await this.find(this.pool, reference);
    if (!record) return null;
    const status = await findTransactionStatus(this.pool, reference);
    return {
      reference,
      provider: record.provider,
      state: status?.state ?? 'PENDING',
      entitlement_status: status?.entitlementStatus ?? 'LOCKED',
      amount: record.amountMinor,
      currency: record.currency,
      entitlement: record.entitlement,
      access_period: record.accessPeriod,
      ...(status?.checks ? { checks: status.checks } : {}),
      money_state: status?.moneyState ?? 'none',
      returned: status?.returnedMinor ?? 0,
      resolution: status?.resolution ? literalOf(MISMATCH_RESOLUTION_STATES, status.resolution, 'resolution') : null,
      updated_at: (status?.updatedAt ?? record.completedAt ?? record.registeredAt).toISOString(),
    };
  }
}

interface CheckoutRowShape {
  reference: string;
  provider: string;
  amount_minor: number;
  currency: string;
  user_id: string;
  customer_email: string | null;
  customer_phone: string | null;
  entitlement: string;
  access_period: string | null;
  request_sha256: string;
  correlation_id: string;
  registered_at: Date;
  completed_at: Date | null;
  submitted_by: string | null;
}

/** The record a new registration is stored as (its correlation id aside, which the row gets). */
function recordOf(body: RegisterCheckoutBody, now: Date, submittedBy: string): Omit<CheckoutRecord, 'correlationId'> {
  return {
    reference: body.reference,
    provider: body.provider,
    amountMinor: body.amount,
    currency: body.currency,
    userId: body.user_id,
    email: body.customer.email ?? null,
    phone: body.customer.phone ?? null,
    entitlement: body.entitlement,
    accessPeriod: body.access_period,
    requestSha256: termsDigest(body),
    registeredAt: now,
    completedAt: null,
    submittedBy,
  };
}

/** The `CheckoutRegistered` message of a new registration. */
function checkoutRegistered(record: CheckoutRecord, now: Date): OutboxMessage<'CheckoutRegistered'> {
  return {
    type: 'CheckoutRegistered',
    payload: {
      event_id: deterministicId('CheckoutRegistered', record.reference),
      occurred_at: now.getTime(),
      correlation_id: record.correlationId,
      reference: record.reference,
      provider: record.provider,
      amount_minor: record.amountMinor,
      currency: record.currency,
      user_id: record.userId,
      customer_email: record.email,
      customer_phone: record.phone,
      entitlement: record.entitlement,
      access_period: record.accessPeriod,
    },
  };
}

function toRecord(row: CheckoutRowShape): CheckoutRecord {
  return {
    reference: row.reference,
    provider: literalOf(PROVIDERS, row.provider, 'provider'),
    amountMinor: row.amount_minor,
    currency: row.currency,
    userId: row.user_id,
    email: row.customer_email,
    phone: row.customer_phone,
    entitlement: row.entitlement,
    accessPeriod: row.access_period,
    requestSha256: row.request_sha256,
    correlationId: row.correlation_id,
    registeredAt: row.registered_at,
    completedAt: row.completed_at,
    submittedBy: row.submitted_by,
  };
}
