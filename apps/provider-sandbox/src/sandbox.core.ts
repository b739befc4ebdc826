import { PROVIDERS, type ProviderName } from '@settle/domain';
import { z } from 'zod';

/**
 * The providers the sandbox stands in for (the `:provider` segment of the control API): the
 * domain's list of names, each simulated (`simulations.ts`).
 */
export { PROVIDERS, type ProviderName };

/** Whether `name` is one of {@link PROVIDERS} (narrows a path parameter without a cast). */
export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** What the simulated customer ends up doing. */
export const SANDBOX_OUTCOMES = [
  'success',
  'declined',
  'clearing_then_success',
  'lower_amount',
  'other_currency',
  'other_customer',
  /** The provider's record names another reference than the session's (Paystack only). */
  'other_reference',
] as const;

/** What happens to the webhook (or callback) of a settled charge. */
export const WEBHOOK_MODES = ['deliver', 'drop', 'delay', 'duplicate', 'spoof'] as const;

/** Why a `declined` charge was declined; each provider words it its own way (Paystack ignores it). */
export const DECLINE_REASONS = ['insufficient_funds', 'wrong_pin'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** Per-transaction knobs of the sandbox, the same for every provider. */
export const behaviourSchema = z
  .object({
    outcome: z.enum(SANDBOX_OUTCOMES).default('success'),
    /** For `clearing_then_success`: verify answers "pending" this many times after payment. */
    clearing_checks: z.number().int().min(0).max(1000).default(1),
    /** The first N verify calls fail this way (502, 504, or no answer within the client's time-out). */
    failures: z.object({ mode: z.enum(['502', '504', 'timeout']), times: z.number().int().min(0).max(100) }).default({ mode: '502', times: 0 }),
    webhook: z.enum(WEBHOOK_MODES).default('deliver'),
    /** For `delay`: milliseconds before the webhook is sent. */
    webhook_delay_ms: z.number().int().min(0).max(600_000).default(2_000),
    /** For `declined`: the reason given (default insufficient funds). */
    decline: z.enum(DECLINE_REASONS).optional(),
  })
  .strict();
export type Behaviour = z.infer<typeof behaviourSchema>;

/** Flat text metadata of a transaction, within Stripe's limits: at most 50 keys of 40 characters, values of 500. */
export const sandboxMetadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 metadata keys');

/** Body of `POST /_sandbox/paystack/transactions` (the other providers refine it). */
export const createTransactionSchema = z
  .object({
    reference: z.string().min(1).max(100),
    amount: z.number().int().positive(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    email: z.email(),
    phone: z.string().optional(),
    behaviour: behaviourSchema.default(behaviourSchema.parse({})),
    /** Flat text metadata the provider lists with the transaction (Paystack `metadata`, Stripe `metadata`, Flutterwave `meta`). */
    metadata: sandboxMetadataSchema.optional(),
  })
  .strict();

/** A parsed control-API create request; `reference` is left out where the provider assigns it. */
export interface CreateRequest {
  reference?: string | undefined;
  /** Minor units. */
  amount: number;
  currency: string;
  email?: string | undefined;
  phone?: string | undefined;
  behaviour: Behaviour;
  metadata?: Record<string, string> | undefined;
  /** When the provider created it, ms since the epoch: now when absent (a bulk seed sets it). */
  createdAtMs?: number | undefined;
}

/** A transaction held by the sandbox (this is also what the control API returns). */
export interface SandboxTransaction {
  id: number;
  /** The merchant's reference; for Stripe the `pi_` id, for M-Pesa the CheckoutRequestID. */
  reference: string;
  /** Minor units. */
  amount: number;
  currency: string;
  email: string | null;
  phone: string | null;
  behaviour: Behaviour;
  paid: boolean;
  paidAt: string | null;
  verifyCalls: number;
  failuresServed: number;
  clearingServed: number;
  webhooksSent: number;
  webhookDue: boolean;
  /** Provider-side identifiers and times (charge id, receipt number, creation time...). */
  details?: Record<string, string | number>;
  /** When the provider created it (ISO 8601): its place in the provider's list. */
  createdAt: string;
  /** When a paid charge was reversed after settlement (`POST .../:reference/reverse`); null while it stands. */
  reversedAt: string | null;
  /** Flat text metadata the provider lists with it; absent when none was given. */
  metadata?: Record<string, string>;
  /** Refunds of the payment, oldest first (`POST .../:reference/refunds`). */
  refunds: SandboxRefund[];
  /** Disputes (chargebacks) of the payment, oldest first (`POST .../:reference/disputes`). */
  disputes: SandboxDispute[];
}

/** A refund the sandbox holds: what each simulator shows as its provider's refund object. */
export interface SandboxRefund {
  /** The provider's refund id (Stripe `re_...`, Paystack a number as text). */
  id: string;
  /** Minor units. */
  amount: number;
  /** Where the money is: asked for, returned, or not returned after all. */
  status: 'pending' | 'succeeded' | 'failed';
  /** ISO 8601. */
  createdAt: string;
  /** When its status last changed, ISO 8601. */
  updatedAt: string;
}

/** A dispute the sandbox holds: what each simulator shows as its provider's dispute object. */
export interface SandboxDispute {
  /** The provider's dispute id (Stripe `dp_...`, Paystack a number as text). */
  id: string;
  /** Minor units. */
  amount: number;
  status: 'open' | 'won' | 'lost';
  /** The payer's stated reason (`fraudulent`). */
  reason: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; null while open. */
  resolvedAt: string | null;
}

/** Where a payment stands, as every provider's answers are derived from it. */
export type PaymentState = 'unpaid' | 'declined' | 'clearing' | 'succeeded';

/** What one verify/query call gets: an injected gateway failure, or the payment's state. */
export type CheckResult = { kind: 'failure'; mode: '502' | '504' | 'timeout' } | { kind: 'state'; state: PaymentState; clearedNow: boolean };

/**
 * An answer of a simulated provider endpoint: a JSON body, or no answer at all for a
 * while (then `after`, which the HTTP layer sends once the hold time has passed).
 */
export type SandboxAnswer =
  { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> } | { kind: 'hang'; after: { status: number; body: unknown } };

/** Shorthand for a JSON answer. */
export function json(status: number, body: unknown): SandboxAnswer {
  return { kind: 'json', status, body };
}

/**
 * What the provider reports, once the outcome knobs are applied: `lower_amount` halves the
 * amount (rounded down to `amountStep` minor units), `other_currency` swaps USD and NGN,
 * `other_customer` changes the email and the phone, `other_reference` the reference (only the
 * Paystack simulator reports it; the others key their records by the reference itself).
 */
export interface ObservedPayment {
  /** The reference on the provider's record: another one for `other_reference`. */
  reference: string;
  /** Minor units. */
  amount: number;
  currency: string;
  email: string | null;
  phone: string | null;
}

/** Someone else's email, for `other_customer`. */
export const OTHER_CUSTOMER_EMAIL = 'someone.else@example.net';

/** Another phone number of the same shape: the last four digits each shifted by five. */
export function otherPhone(phone: string): string {
  let shifted = 0;
  return phone
    .split('')
    .reverse()
    .map((c) => (/\d/.test(c) && shifted++ < 4 ? String((Number(c) + 5) % 10) : c))
    .reverse()
    .join('');
}

/** The payment as the provider sees it (see {@link ObservedPayment}). */
export function observe(tx: SandboxTransaction, amountStep = 1): ObservedPayment {
  const outcome = tx.behaviour.outcome;
  return {
    reference: outcome === 'other_reference' ? `${tx.reference}_other` : tx.reference,
    amount: outcome === 'lower_amount' ? Math.floor(tx.amount / 2 / amountStep) * amountStep : tx.amount,
    currency: outcome === 'other_currency' ? (tx.currency === 'USD' ? 'NGN' : 'USD') : tx.currency,
    email: outcome === 'other_customer' ? OTHER_CUSTOMER_EMAIL : tx.email,
    phone: outcome === 'other_customer' && tx.phone !== null ? otherPhone(tx.phone) : tx.phone,
  };
}

/**
 * The transactions of one simulated provider and the generic behaviour model: what a
 * payment's state is on each verify call, given its knobs. Knows nothing of any provider's
 * response shapes; the per-provider simulators map {@link CheckResult} to those.
 */
export class TransactionBook {
  private readonly byReference = new Map<string, SandboxTransaction>();
  private readonly byId = new Map<number, SandboxTransaction>();
  private nextId: number;

  /** @param firstId - first numeric id handed out (providers' ids differ in size). */
  constructor(firstId: number) {
    this.nextId = firstId;
  }

  /** Creates a transaction, or returns the existing one with that reference unchanged. */
  create(input: CreateRequest & { reference: string }, details?: Record<string, string | number>): SandboxTransaction {
    const existing = this.byReference.get(input.reference);
    if (existing) return existing;
    const createdAtMs = input.createdAtMs ?? Date.now();
    const tx: SandboxTransaction = {
      id: this.nextId++,
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      email: input.email ?? null,
      phone: input.phone ?? null,
      behaviour: input.behaviour,
      paid: false,
      paidAt: null,
      verifyCalls: 0,
      failuresServed: 0,
      clearingServed: 0,
      webhooksSent: 0,
      webhookDue: false,
      ...(details ? { details } : {}),
      createdAt: new Date(createdAtMs).toISOString(),
      reversedAt: null,
      refunds: [],
      disputes: [],
    };
    if (input.metadata) tx.metadata = input.metadata;
    this.byReference.set(tx.reference, tx);
    this.byId.set(tx.id, tx);
    this.created.add(createdAtMs, tx);
    return tx;
  }

  /** The transaction with this reference. */
  get(reference: string): SandboxTransaction | undefined {
    return this.byReference.get(reference);
  }

  /** The transaction with this numeric id (Flutterwave's verify by id). */
  getById(id: number): SandboxTransaction | undefined {
    return this.byId.get(id);
  }

  /** Whether a reference is taken. */
  has(reference: string): boolean {
    return this.byReference.has(reference);
  }

  /**
   * The customer pays. Returns the state the charge is in right after (`clearing` when it
   * will clear on a later verify call), or null when it was paid already.
   */
  pay(tx: SandboxTransaction, now: Date = new Date()): Exclude<PaymentState, 'unpaid'> | null {
    if (tx.paid) return null;
    tx.paid = true;
    tx.paidAt = now.toISOString();
    this.paid.add(now.getTime(), tx);
    if (tx.behaviour.outcome === 'declined') return 'declined';
    if (tx.behaviour.outcome === 'clearing_then_success') return 'clearing';
    return 'succeeded';
  }

  /**
   * One verify call: the first `failures.times` calls fail, then the state follows the
   * outcome. `clearedNow` is true on the call that clears a held (`clearing_then_success`)
   * payment: its webhook is due then.
   */
  check(tx: SandboxTransaction): CheckResult {
    tx.verifyCalls += 1;
    const { failures, outcome } = tx.behaviour;
    if (tx.failuresServed < failures.times) {
      tx.failuresServed += 1;
      return { kind: 'failure', mode: failures.mode };
    }
    if (!tx.paid) return { kind: 'state', state: 'unpaid', clearedNow: false };
    if (outcome === 'declined') return { kind: 'state', state: 'declined', clearedNow: false };
    if (outcome === 'clearing_then_success' && tx.clearingServed < tx.behaviour.clearing_checks) {
      tx.clearingServed += 1;
      return { kind: 'state', state: 'clearing', clearedNow: false };
    }
    let clearedNow = false;
    if (outcome === 'clearing_then_success' && !tx.webhookDue) {
      tx.webhookDue = true;
      clearedNow = true;
    }
    return { kind: 'state', state: 'succeeded', clearedNow };
  }

  /** Counters for the health endpoint. */
  stats(): { transactions: number; verifyCalls: number; webhooksSent: number } {
    let verifyCalls = 0;
    let webhooksSent = 0;
    for (const tx of this.byReference.values()) {
      verifyCalls += tx.verifyCalls;
      webhooksSent += tx.webhooksSent;
    }
    return { transactions: this.byReference.size, verifyCalls, webhooksSent };
  }

  /** Every transaction by creation time (the lists of Paystack and Stripe, which create a transaction when the checkout starts). */
  readonly created = new TimeIndex();

  /** Every paid transaction by payment time (the list of Flutterwave, which creates its transaction when the customer pays). */
  readonly paid = new TimeIndex();

  /**
   * Where a payment stands, as a list shows it: like {@link check} but consuming nothing (no verify
   * call counted, no injected failure served, no clearing check used up, no webhook made due), so
   * listing never changes what the next verify call answers. A clearing payment shows as clearing
   * until its verify calls have cleared it.
   */
  peek(tx: SandboxTransaction): PaymentState {
    if (!tx.paid) return 'unpaid';
    if (tx.behaviour.outcome === 'declined') return 'declined';
    if (tx.behaviour.outcome === 'clearing_then_success' && tx.clearingServed < tx.behaviour.clearing_checks) return 'clearing';
    return 'succeeded';
  }

  /**
   * Reverses a payment after settlement (a chargeback or reversal the provider records on the
   * payment): only a paid payment that {@link peek}s as succeeded can be; each provider shows it
   * as its payment object would (Paystack `reversed`; a Stripe PaymentIntent or a Flutterwave
   * transaction stays successful).
   *
   * @returns true when it is reversed now or was already, false when it is not a succeeded payment.
   */
  reverse(tx: SandboxTransaction, now: Date = new Date()): boolean {
    if (tx.reversedAt !== null) return true;
    if (this.peek(tx) !== 'succeeded') return false;
    tx.reversedAt = now.toISOString();
    return true;
  }

  /** Minor units of a payment not yet refunded (pending and succeeded refunds count, failed ones do not). */
  refundable(tx: SandboxTransaction): number {
    return tx.amount - tx.refunds.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
  }

  /**
   * Refunds a succeeded payment, in full or in part (as a merchant does from the provider's
   * dashboard).
   *
   * @returns the refund, or why not: `not_paid` (not a succeeded payment), `too_much` (more than
   *   is left to refund).
   */
  refund(tx: SandboxTransaction, id: string, amount: number, status: 'pending' | 'succeeded', now: Date = new Date()): SandboxRefund | 'not_paid' | 'too_much' {
    if (this.peek(tx) !== 'succeeded') return 'not_paid';
    if (amount > this.refundable(tx)) return 'too_much';
    const at = now.toISOString();
    const refund: SandboxRefund = { id, amount, status, createdAt: at, updatedAt: at };
    tx.refunds.push(refund);
    this.refundsById.set(id, { tx, refund });
    return refund;
  }

  /** The transaction whose provider detail `key` (Flutterwave's `flw_ref`) is `value`: a scan, for the sandbox's few lookups by it. */
  findByDetail(key: string, value: string): SandboxTransaction | undefined {
    for (const tx of this.byReference.values()) if (tx.details?.[key] === value) return tx;
    return undefined;
  }

  /** A refund and its payment by the refund's id. */
  refundById(id: string): { tx: SandboxTransaction; refund: SandboxRefund } | undefined {
    return this.refundsById.get(id);
  }

  /**
   * Opens a dispute on a succeeded payment (the payer's bank asks for the money back).
   *
   * @returns the dispute, or `not_paid` when it is not a succeeded payment.
   */
  dispute(tx: SandboxTransaction, id: string, amount: number, reason: string, now: Date = new Date()): SandboxDispute | 'not_paid' {
    if (this.peek(tx) !== 'succeeded') return 'not_paid';
    const dispute: SandboxDispute = { id, amount, status: 'open', reason, createdAt: now.toISOString(), resolvedAt: null };
    tx.disputes.push(dispute);
    this.disputesById.set(id, { tx, dispute });
    return dispute;
  }

  /** A dispute and its payment by the dispute's id. */
  disputeById(id: string): { tx: SandboxTransaction; dispute: SandboxDispute } | undefined {
    return this.disputesById.get(id);
  }

  /**
   * Every refund of every payment created in `[fromMs, untilMs)` (ms), oldest first, refunds of
   * the same instant in the order they were made: the providers' refund lists by creation time.
   * A scan of the book's refunds (a sandbox holds few; a bulk seed makes one per `refunded` transaction).
   */
  refundsCreated(fromMs: number, untilMs: number): Array<{ tx: SandboxTransaction; refund: SandboxRefund }> {
    return createdIn([...this.refundsById.values()], (entry) => entry.refund.createdAt, fromMs, untilMs);
  }

  /** Every dispute of every payment opened in `[fromMs, untilMs)` (ms), oldest first: the providers' dispute lists by creation time. */
  disputesCreated(fromMs: number, untilMs: number): Array<{ tx: SandboxTransaction; dispute: SandboxDispute }> {
    return createdIn([...this.disputesById.values()], (entry) => entry.dispute.createdAt, fromMs, untilMs);
  }

  private readonly refundsById = new Map<string, { tx: SandboxTransaction; refund: SandboxRefund }>();
  private readonly disputesById = new Map<string, { tx: SandboxTransaction; dispute: SandboxDispute }>();
}

/** The entries whose creation instant (ISO 8601) is in `[fromMs, untilMs)`, oldest first; entries of the same instant keep their order (a stable sort). */
function createdIn<T>(entries: readonly T[], createdAt: (entry: T) => string, fromMs: number, untilMs: number): T[] {
  return entries
    .map((entry) => ({ entry, at: Date.parse(createdAt(entry)) }))
    .filter(({ at }) => at >= fromMs && at < untilMs)
    .sort((a, b) => a.at - b.at)
    .map(({ entry }) => entry);
}

/**
 * Transactions ordered by one instant (creation or payment time, ms) and then by id, for the
 * providers' lists: a window is found by binary search and a page is a slice, never a scan, so a
 * book of a million transactions answers a page in microseconds. Appends in order (the clock moves
 * forward) keep it sorted; an append out of order (a bulk seed in the past) marks it unsorted and
 * the next read sorts it once.
 */
export class TimeIndex {
  private at: number[] = [];
  private txs: SandboxTransaction[] = [];
  private sorted = true;

  /** How many transactions it holds. */
  get size(): number {
    return this.at.length;
  }

  /** Adds a transaction at an instant (ms). */
  add(atMs: number, tx: SandboxTransaction): void {
    const last = this.at.length - 1;
    if (last >= 0 && this.sorted) {
      const lastAt = this.at[last]!;
      if (atMs < lastAt || (atMs === lastAt && tx.id < this.txs[last]!.id)) this.sorted = false;
    }
    this.at.push(atMs);
    this.txs.push(tx);
  }

  private ensureSorted(): void {
    if (this.sorted) return;
    const order = this.at.map((_, i) => i);
    order.sort((a, b) => this.at[a]! - this.at[b]! || this.txs[a]!.id - this.txs[b]!.id);
    this.at = order.map((i) => this.at[i]!);
    this.txs = order.map((i) => this.txs[i]!);
    this.sorted = true;
  }

  /** The first position whose instant is at or after `atMs` (binary search). */
  private lowerBound(atMs: number): number {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at[mid]! < atMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The positions `[lo, hi)` (oldest first) of the transactions at an instant in `[fromMs, untilMs)`. */
  range(fromMs: number, untilMs: number): { lo: number; hi: number } {
    this.ensureSorted();
    const lo = this.lowerBound(fromMs);
    return { lo, hi: Math.max(lo, this.lowerBound(untilMs)) };
  }

  /** The transaction at a position (oldest first). */
  get(position: number): SandboxTransaction | undefined {
    this.ensureSorted();
    return this.txs[position];
  }

  /**
   * The position of a transaction it holds at `atMs` (binary search on the instant, then its id),
   * or -1 when it is not there.
   */
  positionOf(tx: SandboxTransaction, atMs: number): number {
    this.ensureSorted();
    let lo = this.lowerBound(atMs);
    let hi = this.lowerBound(atMs + 1);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.txs[mid]!.id < tx.id) lo = mid + 1;
      else hi = mid;
    }
    return this.txs[lo] === tx ? lo : -1;
  }

  /**
   * A page newest first: the transactions at positions `[lo, hi)` taken from the newest, skipping
   * `skip` of them, at most `limit`.
   */
  newestFirst(lo: number, hi: number, skip: number, limit: number): SandboxTransaction[] {
    this.ensureSorted();
    const page: SandboxTransaction[] = [];
    for (let position = hi - 1 - skip; position >= lo && page.length < limit; position--) page.push(this.txs[position]!);
    return page;
  }
}
