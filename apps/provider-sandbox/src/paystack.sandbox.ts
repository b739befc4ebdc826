import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** What the simulated customer ends up doing. */
export const SANDBOX_OUTCOMES = [
  'success',
  'declined',
  'clearing_then_success',
  'lower_amount',
  'other_currency',
  'other_customer',
] as const;

/** What happens to the webhook of a successful charge. */
export const WEBHOOK_MODES = ['deliver', 'drop', 'delay', 'duplicate', 'spoof'] as const;

/** Per-transaction knobs of the sandbox. */
export const behaviourSchema = z
  .object({
    outcome: z.enum(SANDBOX_OUTCOMES).default('success'),
    /** For `clearing_then_success`: verify answers "pending" this many times after payment. */
    clearing_checks: z.number().int().min(0).max(1000).default(1),
    /** The first N verify calls fail this way (502, 504, or no answer within the client's time-out). */
    failures: z
      .object({ mode: z.enum(['502', '504', 'timeout']), times: z.number().int().min(0).max(100) })
      .default({ mode: '502', times: 0 }),
    webhook: z.enum(WEBHOOK_MODES).default('deliver'),
    /** For `delay`: milliseconds before the webhook is sent. */
    webhook_delay_ms: z.number().int().min(0).max(600_000).default(2_000),
  })
  .strict();
export type Behaviour = z.infer<typeof behaviourSchema>;

/** Body of `POST /_sandbox/paystack/transactions`. */
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

/** A transaction held by the sandbox. */
export interface SandboxTransaction {
  id: number;
  reference: string;
  amount: number;
  currency: string;
  email: string;
  phone: string | null;
  behaviour: Behaviour;
  paid: boolean;
  paidAt: string | null;
  verifyCalls: number;
  failuresServed: number;
  clearingServed: number;
  webhooksSent: number;
  webhookDue: boolean;
}

/** An answer of the simulated verify endpoint. */
export type VerifyAnswer =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'hang' };

/** Constant-time check of `Authorization: Bearer <secret key>`. */
export function bearerMatches(header: string | undefined, secretKey: string): boolean {
  const presented = Buffer.from(/^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1] ?? '', 'utf8');
  const expected = Buffer.from(secretKey, 'utf8');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * The Paystack-style provider, simulated: holds transactions made through the control API
 * and answers `GET /transaction/verify/:reference` with Paystack's response shape
 * (shared/reference/providers.md, provider A), following each transaction's knobs.
 */
export class PaystackSandbox {
  private readonly transactions = new Map<string, SandboxTransaction>();
  private nextId = 4_099_260_000;

  create(input: z.infer<typeof createTransactionSchema>): SandboxTransaction {
    const existing = this.transactions.get(input.reference);
    if (existing) return existing;
    const tx: SandboxTransaction = {
      id: this.nextId++,
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      email: input.email,
      phone: input.phone ?? null,
      behaviour: input.behaviour,
      paid: false,
      paidAt: null,
      verifyCalls: 0,
      failuresServed: 0,
      clearingServed: 0,
      webhooksSent: 0,
      webhookDue: false,
    };
    this.transactions.set(tx.reference, tx);
    return tx;
  }

  get(reference: string): SandboxTransaction | undefined {
    return this.transactions.get(reference);
  }

  /**
   * The customer pays. Returns true when the charge succeeded at once, so a
   * `charge.success` webhook is due now (Paystack sends webhooks for successful charges only).
   */
  pay(tx: SandboxTransaction): boolean {
    if (tx.paid) return false;
    tx.paid = true;
    tx.paidAt = new Date().toISOString();
    return this.chargedNow(tx);
  }

  private chargedNow(tx: SandboxTransaction): boolean {
    return tx.behaviour.outcome !== 'declined' && tx.behaviour.outcome !== 'clearing_then_success';
  }

  /** The `data` object Paystack returns for a transaction in a given status. */
  data(tx: SandboxTransaction, status: string): Record<string, unknown> {
    const b = tx.behaviour;
    const amount = b.outcome === 'lower_amount' ? Math.floor(tx.amount / 2) : tx.amount;
    const currency = b.outcome === 'other_currency' ? (tx.currency === 'USD' ? 'NGN' : 'USD') : tx.currency;
    const email = b.outcome === 'other_customer' ? 'someone.else@example.net' : tx.email;
    return {
      id: tx.id,
      domain: 'test',
      status,
      reference: tx.reference,
      amount,
      requested_amount: amount,
      currency,
      gateway_response: status === 'success' ? 'Successful' : status === 'failed' ? 'Declined' : 'Transaction in progress',
      paid_at: status === 'success' ? tx.paidAt : null,
      channel: 'card',
      fees: status === 'success' ? Math.round(amount * 0.015) : null,
      customer: { email, phone: tx.phone, customer_code: `CUS_${tx.id}` },
      metadata: null,
    };
  }

  /**
   * Answers one verify call and reports whether this call cleared a held payment (its
   * webhook is then due).
   */
  verify(reference: string): { answer: VerifyAnswer; clearedNow: SandboxTransaction | null } {
    const tx = this.transactions.get(reference);
    if (!tx) return { answer: { kind: 'json', status: 400, body: { status: false, message: 'Transaction reference not found' } }, clearedNow: null };
    tx.verifyCalls += 1;
    const { failures } = tx.behaviour;
    if (tx.failuresServed < failures.times) {
      tx.failuresServed += 1;
      if (failures.mode === 'timeout') return { answer: { kind: 'hang' }, clearedNow: null };
      const status = Number(failures.mode);
      return { answer: { kind: 'json', status, body: { status: false, message: status === 502 ? 'Bad Gateway' : 'Gateway Timeout' } }, clearedNow: null };
    }
    let status: string;
    let clearedNow: SandboxTransaction | null = null;
    if (!tx.paid) status = 'abandoned';
    else if (tx.behaviour.outcome === 'declined') status = 'failed';
    else if (tx.behaviour.outcome === 'clearing_then_success' && tx.clearingServed < tx.behaviour.clearing_checks) {
      tx.clearingServed += 1;
      status = 'pending';
    } else {
      status = 'success';
      if (tx.behaviour.outcome === 'clearing_then_success' && !tx.webhookDue) {
        tx.webhookDue = true;
        clearedNow = tx;
      }
    }
    return {
      answer: { kind: 'json', status: 200, body: { status: true, message: 'Verification successful', data: this.data(tx, status) } },
      clearedNow,
    };
  }

  /** The `charge.success` webhook body and its signature (a wrong key when spoofing). */
  webhook(tx: SandboxTransaction, secretKey: string): { body: string; signature: string } {
    const body = JSON.stringify({ event: 'charge.success', data: this.data(tx, 'success') });
    const key = tx.behaviour.webhook === 'spoof' ? randomBytes(32).toString('hex') : secretKey;
    return { body, signature: createHmac('sha512', key).update(body).digest('hex') };
  }

  stats(): { transactions: number; verifyCalls: number; webhooksSent: number } {
    let verifyCalls = 0;
    let webhooksSent = 0;
    for (const tx of this.transactions.values()) {
      verifyCalls += tx.verifyCalls;
      webhooksSent += tx.webhooksSent;
    }
    return { transactions: this.transactions.size, verifyCalls, webhooksSent };
  }
}
