import { createHmac } from 'node:crypto';

import { Agent, request } from 'undici';
import type { SandboxTransaction } from '../../apps/provider-sandbox/src/sandbox.core.js';
import type { RunningStack } from '@settle/testing';
import { closedPool, sleep, wallNow } from '../support/open-loop.js';
import { AMOUNT_MINOR, CURRENCY, WEBHOOK_PATH } from './options.js';

/** A checkout ready for its webhook. */
export interface PreparedCheckout {
  reference: string;
  body: Buffer;
  signature: string;
}

/** The sandbox's transaction as its control API answers `pay`. */
export type PaidTransaction = Pick<SandboxTransaction, 'id' | 'reference' | 'amount' | 'currency' | 'email' | 'phone' | 'paidAt'>;

/**
 * The `charge.success` body the sandbox sends for a paid transaction, field for field
 * (`PaystackSimulator.data(tx, 'success')` in apps/provider-sandbox/src/paystack.sandbox.ts).
 */
export function sandboxChargeSuccess(tx: PaidTransaction): string {
  return JSON.stringify({
    event: 'charge.success',
    data: {
      id: tx.id,
      domain: 'test',
      status: 'success',
      reference: tx.reference,
      amount: tx.amount,
      requested_amount: tx.amount,
      currency: tx.currency,
      gateway_response: 'Successful',
      paid_at: tx.paidAt,
      channel: 'card',
      fees: Math.round(tx.amount * 0.015),
      customer: { email: tx.email, phone: tx.phone, customer_code: `CUS_${tx.id}` },
      metadata: null,
    },
  });
}

/**
 * Creates the transaction in the sandbox with its own webhook dropped, pays it, registers the
 * checkout with ingestion, and builds and signs the webhook the sandbox would have sent.
 *
 * @throws Error when the sandbox or ingestion refuses.
 */
export async function prepareCheckout(stack: RunningStack, reference: string): Promise<PreparedCheckout> {
  const email = `bench.${reference}@example.com`;
  const created = await stack.sandbox.create({ reference, amount: AMOUNT_MINOR, currency: CURRENCY, email, behaviour: { webhook: 'drop' } });
  if (created.status !== 201) throw new Error(`sandbox create ${reference} answered ${created.status}`);
  const paid = await stack.sandbox.pay(reference);
  if (paid.status !== 200) throw new Error(`sandbox pay ${reference} answered ${paid.status}`);
  const registered = await stack.ingestion.register({
    provider: 'paystack',
    reference,
    amount: AMOUNT_MINOR,
    currency: CURRENCY,
    user_id: `user_${reference}`,
    customer: { email },
    entitlement: 'pro',
    access_period: 'P1M',
  });
  if (registered.status !== 202) throw new Error(`registration of ${reference} answered ${registered.status}`);
  const body = Buffer.from(sandboxChargeSuccess(paid.body as unknown as PaidTransaction));
  return { reference, body, signature: createHmac('sha512', stack.paystackSecret).update(body).digest('hex') };
}

/** Where a phase's checkouts come from: all prepared beforehand, or prepared while it runs. */
export interface CheckoutSource {
  count: number;
  reference(i: number): string;
  /** The prepared checkout `i` (waits for it when it is not ready yet). */
  get(i: number): PreparedCheckout | Promise<PreparedCheckout>;
  /** Checkout `i` was sent: its preparation may be forgotten. */
  release(i: number): void;
}

/** Prepares every checkout first, `concurrency` at a time. */
export async function preparedUpfront(stack: RunningStack, references: string[], concurrency: number): Promise<CheckoutSource> {
  const prepared: Array<PreparedCheckout | undefined> = new Array(references.length);
  await closedPool(references.length, concurrency, async (i) => {
    prepared[i] = await prepareCheckout(stack, references[i]!);
  });
  return {
    count: references.length,
    reference: (i) => references[i]!,
    get: (i) => prepared[i]!,
    release: (i) => {
      prepared[i] = undefined;
    },
  };
}

/**
 * A rolling buffer for long phases: `concurrency` workers prepare checkouts in order, staying
 * at most `lead` checkouts ahead of the last one sent, so preparation runs alongside the load
 * rather than all upfront.
 */
export class RollingCheckouts implements CheckoutSource {
  private readonly pending = new Map<
    number,
    { promise: Promise<PreparedCheckout>; value?: PreparedCheckout; resolve: (c: PreparedCheckout) => void; reject: (e: unknown) => void }
  >();
  private next = 0;
  private sent = 0;
  private stopped = false;
  private workers: Promise<void>[] = [];
  /** Checkouts prepared so far. */
  preparedCount = 0;
  failures = 0;

  constructor(
    private readonly stack: RunningStack,
    private readonly references: string[],
    private readonly lead: number,
    private readonly concurrency: number,
  ) {}

  get count(): number {
    return this.references.length;
  }

  reference(i: number): string {
    return this.references[i]!;
  }

  private slot(i: number) {
    let slot = this.pending.get(i);
    if (!slot) {
      let resolve!: (c: PreparedCheckout) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<PreparedCheckout>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => undefined);
      slot = { promise, resolve, reject };
      this.pending.set(i, slot);
    }
    return slot;
  }

  start(): void {
    this.workers = Array.from({ length: this.concurrency }, async () => {
      while (!this.stopped && this.next < this.references.length) {
        if (this.next - this.sent >= this.lead) {
          await sleep(50);
          continue;
        }
        const i = this.next++;
        const slot = this.slot(i);
        try {
          slot.value = await prepareCheckout(this.stack, this.references[i]!);
          slot.resolve(slot.value);
          this.preparedCount += 1;
        } catch (error) {
          this.failures += 1;
          slot.reject(error);
        }
      }
    });
  }

  /** The checkout when it is prepared, else the promise of it. */
  get(i: number): PreparedCheckout | Promise<PreparedCheckout> {
    this.sent = Math.max(this.sent, i + 1);
    const slot = this.slot(i);
    return slot.value ?? slot.promise;
  }

  release(i: number): void {
    this.pending.delete(i);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks.

/** What happened to one webhook. */
export interface Sent {
  /** performance.now() it was due (the burst: when it was started). */
  dueAt: number;
  /** Wall clock of its answer, ms (NaN until answered). */
  answeredAt: number;
  status: number | null;
  error: string | null;
  /** Not prepared when it fell due (soak only). */
  late: boolean;
}

/** Posts signed webhooks to ingestion over keep-alive connections. */
export class WebhookClient {
  readonly agent: Agent;

  constructor(
    private readonly url: string,
    connections: number,
  ) {
    this.agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  }

  /** Sends one webhook and fills in `sent` (answer time, status or error). */
  async send(checkout: PreparedCheckout, sent: Sent): Promise<void> {
    try {
      const response = await request(`${this.url}${WEBHOOK_PATH}`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'x-paystack-signature': checkout.signature },
        body: checkout.body,
      });
      await response.body.dump();
      sent.answeredAt = wallNow();
      sent.status = response.statusCode;
    } catch (error) {
      sent.answeredAt = wallNow();
      sent.error = (error as { code?: string }).code ?? (error as Error).message ?? 'unknown';
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Observers: the ledger, the settlements topic, consumer lag, outbox backlog, PostgreSQL stats.
