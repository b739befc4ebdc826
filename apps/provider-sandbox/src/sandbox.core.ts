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

/** Body of `POST /_sandbox/paystack/transactions` (the other providers refine it). */
export const createTransactionSchema = z
  .object({
    reference: z.string().min(1).max(100),
    amount: z.number().int().positive(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    email: z.email(),
    phone: z.string().optional(),
    behaviour: behaviourSchema.default(behaviourSchema.parse({})),
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
}

/** Where a payment stands, as every provider's answers are derived from it. */
export type PaymentState = 'unpaid' | 'declined' | 'clearing' | 'succeeded';

/** What one verify/query call gets: an injected gateway failure, or the payment's state. */
export type CheckResult = { kind: 'failure'; mode: '502' | '504' | 'timeout' } | { kind: 'state'; state: PaymentState; clearedNow: boolean };

/**
 * An answer of a simulated provider endpoint: a JSON body, or no answer at all for a
 * while (then `after`, which the HTTP layer sends once the hold time has passed).
 */
export type SandboxAnswer = { kind: 'json'; status: number; body: unknown } | { kind: 'hang'; after: { status: number; body: unknown } };

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
    };
    this.byReference.set(tx.reference, tx);
    this.byId.set(tx.id, tx);
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
}
