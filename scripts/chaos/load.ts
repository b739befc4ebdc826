import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Answer, SandboxBehaviour } from '../ops/clients.js';
import { AFTER_SETTLEMENT, SCENARIOS, type AfterSettlementScenario, type Scenario } from '../demo/scenarios.js';
import type { ChaosBed } from './bed.js';
import type { CommandChannel } from './commands.js';

/** One checkout of the load. */
export interface LoadedCheckout {
  reference: string;
  userId: string;
  amount: number;
  email: string;
  outcome: Scenario;
  /** What the sandbox was told (the outcome's behaviour, unless the scenario altered it). */
  behaviour: SandboxBehaviour;
  /** How it was registered and completed: the checkout API, or commands on the checkout commands topic. */
  via: 'http' | 'kafka';
  /** True once ingestion accepted its registration (202, or an `accepted` result of its command). */
  registered: boolean;
  /** After settlement: true once the sandbox refunded it or decided its dispute lost (its notifications sent). */
  moneyMoved?: boolean;
  /** Why the flow gave up, when it did. */
  error?: string;
}

/** A running load: its checkouts (filled as they start) and the moment it is done. */
export interface Load {
  checkouts: LoadedCheckout[];
  /** Checkouts it will start in all (at most, when it is stopped earlier). */
  total: number;
  /** Checkouts started so far. */
  started(): number;
  /** Starts no more checkouts; those started finish their flows (`done`). */
  stop(): void;
  /** Resolves once every checkout's flow ended (accepted or given up). */
  done: Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The load's outcomes: the demo's, then the payments refunded or charged back after they settled
 * (their notifications reach Settle; the reversal, which only a reconciliation run finds, is the
 * demo's).
 */
export const LOAD_OUTCOMES: readonly Scenario[] = [...SCENARIOS, ...AFTER_SETTLEMENT.filter((s) => s.action !== 'reverse')];

/**
 * Once the checkout settled (read through ingestion, every 500 ms, at most 120 s), its money goes
 * back at the provider: refunded in full, or disputed and the dispute lost, each notified.
 *
 * @throws Error when it never settles, or the sandbox keeps refusing.
 */
async function moneyBack(bed: ChaosBed, c: LoadedCheckout, scenario: AfterSettlementScenario): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await bed.stack.ingestion.status(c.reference).catch(() => null))?.body?.state !== 'SETTLED_CONSENSUS') {
    if (Date.now() > deadline) throw new Error(`${c.reference} never settled, so its money could not go back`);
    await sleep(500);
  }
  if (scenario.action === 'refund') {
    await untilAccepted(`refund ${c.reference}`, () => bed.sandbox.refund(c.reference), 201, 90_000);
  } else {
    const dispute = await untilAccepted(`dispute ${c.reference}`, () => bed.sandbox.dispute(c.reference, { reason: 'fraudulent' }), 201, 90_000);
    await untilAccepted(`lose dispute ${c.reference}`, () => bed.sandbox.resolveDispute(dispute.body.id, { outcome: 'lost' }), 200, 90_000);
  }
  c.moneyMoved = true;
}

/**
 * Calls as an upstream service would: again after a 5xx or a network error, every 250 ms, until
 * `expected` comes back or `timeoutMs` passes.
 *
 * @throws Error on a 4xx other than `expected`, or when the deadline passes.
 */
async function untilAccepted<T>(what: string, call: () => Promise<Answer<T>>, expected: number, timeoutMs: number): Promise<Answer<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call().catch(() => null);
    if (answer?.status === expected) return answer;
    if (answer && answer.status < 500) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    if (Date.now() > deadline) throw new Error(`${what} still refused after ${timeoutMs} ms (last ${answer?.status ?? 'no answer'})`);
    await sleep(250);
  }
}

/** Refuses a command's result other than `accepted`: the load sends each command once. */
function acceptedResult(what: string, result: { outcome: string; problem: { code: string; detail: string | null } | null }): void {
  if (result.outcome !== 'accepted')
    throw new Error(`${what} answered ${result.outcome}${result.problem ? ` ${result.problem.code}: ${result.problem.detail ?? ''}` : ''}`);
}

/**
 * Starts a steady checkout load: `count` checkouts, one every `1000 / ratePerSecond` ms, their
 * sandbox outcomes taken in turn from {@link LOAD_OUTCOMES} (the demo's, and payments refunded or
 * charged back once settled), two checkouts per user (so settled pairs give a
 * `subscription_started` then a `subscription_renewed`). Each flow
 * is what the demo does (sandbox transaction, registration, payment, completion), retried as an
 * upstream service would through an outage of ingestion or its database (at most 90 s); with
 * `commands`, a share of the checkouts is registered and completed over the checkout commands
 * topic instead, each command sent once (Kafka keeps it through the outage) and its result awaited.
 *
 * @param tag - distinguishes this load's references and users from every other's.
 */
export function startLoad(
  bed: ChaosBed,
  options: {
    count: number;
    ratePerSecond: number;
    tag: string;
    outcomes?: readonly Scenario[];
    /** The sandbox behaviour of checkout `index` (default its outcome's): a provider storm adds failures to some. */
    behaviourOf?: (index: number, outcome: Scenario) => SandboxBehaviour;
    /**
     * Registers and completes a share of the checkouts (evenly spread: every second one for 0.5)
     * with commands on the checkout commands topic instead of the checkout API, each command
     * sent once and its result awaited (at most 90 s).
     */
    commands?: { channel: CommandChannel; share: number };
  },
): Load {
  const outcomes = options.outcomes ?? LOAD_OUTCOMES;
  const run = `${options.tag}_${randomBytes(3).toString('hex')}`;
  const checkouts: LoadedCheckout[] = [];
  const flows: Array<Promise<void>> = [];
  const spacing = 1000 / options.ratePerSecond;
  const share = options.commands?.share ?? 0;
  // Evenly spread: checkout i goes over Kafka when the share's running count steps up at it.
  const viaKafka = (i: number) => Math.floor((i + 1) * share) > Math.floor(i * share);
  const flow = async (c: LoadedCheckout) => {
    try {
      await untilAccepted(
        `sandbox ${c.reference}`,
        () => bed.sandbox.create({ reference: c.reference, amount: c.amount, currency: 'NGN', email: c.email, behaviour: c.behaviour }),
        201,
        90_000,
      );
      const body = {
        provider: 'paystack',
        reference: c.reference,
        amount: c.amount,
        currency: 'NGN',
        user_id: c.userId,
        customer: { email: c.email },
        entitlement: 'pro-monthly',
        access_period: 'P1M',
      };
      const channel = options.commands?.channel;
      if (c.via === 'kafka' && channel) {
        const command = { event_id: randomUUID(), occurred_at: Date.now(), correlation_id: `order-${c.reference}`, reference: c.reference };
        const registration = { ...command, ...body, customer: { email: c.email, phone: null } };
        acceptedResult(`RegisterCheckout ${c.reference}`, await channel.send('RegisterCheckout', registration, 90_000));
        c.registered = true;
        await untilAccepted(`pay ${c.reference}`, () => bed.sandbox.pay(c.reference), 200, 90_000);
        const completion = { ...command, event_id: randomUUID(), occurred_at: Date.now() };
        acceptedResult(`CompleteCheckout ${c.reference}`, await channel.send('CompleteCheckout', completion, 90_000));
      } else {
        await untilAccepted(`register ${c.reference}`, () => bed.stack.ingestion.register(body), 202, 90_000);
        c.registered = true;
        await untilAccepted(`pay ${c.reference}`, () => bed.sandbox.pay(c.reference), 200, 90_000);
        await untilAccepted(`complete ${c.reference}`, () => bed.stack.ingestion.complete(c.reference), 202, 90_000);
      }
      if ('action' in c.outcome) await moneyBack(bed, c, c.outcome as AfterSettlementScenario);
    } catch (error) {
      c.error = error instanceof Error ? error.message : String(error);
    }
  };
  let stopped = false;
  const done = (async () => {
    const start = Date.now();
    for (let i = 0; i < options.count && !stopped; i++) {
      const wait = start + i * spacing - Date.now();
      if (wait > 0) await sleep(wait);
      if (stopped) break;
      const outcome = outcomes[i % outcomes.length]!;
      const c: LoadedCheckout = {
        reference: `ref_${run}_${String(i).padStart(5, '0')}`,
        userId: `user-${run}-${String(Math.floor(i / 2)).padStart(5, '0')}`,
        amount: 100_000 + (i % 900) * 100,
        email: `payer.${run}.${i}@example.com`,
        outcome,
        behaviour: options.behaviourOf?.(i, outcome) ?? outcome.behaviour,
        via: viaKafka(i) ? 'kafka' : 'http',
        registered: false,
      };
      checkouts.push(c);
      flows.push(flow(c));
    }
    await Promise.all(flows);
  })();
  return { checkouts, total: options.count, started: () => checkouts.length, stop: () => void (stopped = true), done };
}

/** A Paystack `charge.success` webhook body for a checkout, as the sandbox sends it (`variant` changes the provider's id). */
export function paystackWebhookBody(c: Pick<LoadedCheckout, 'reference' | 'amount' | 'email'>, variant = 0): string {
  return JSON.stringify({
    event: 'charge.success',
    data: {
      id: 7_000_000 + variant,
      domain: 'test',
      status: 'success',
      reference: c.reference,
      amount: c.amount,
      requested_amount: c.amount,
      currency: 'NGN',
      gateway_response: 'Successful',
      paid_at: new Date(0).toISOString(),
      channel: 'card',
      fees: Math.round(c.amount * 0.015),
      customer: { email: c.email, phone: null, customer_code: `CUS_${variant}` },
      metadata: null,
    },
  });
}

/** What posting one webhook gave: the body's SHA-256 and the answer's status (0: no answer). */
export interface PostedWebhook {
  sha256: string;
  status: number;
}

/**
 * Posts a Paystack webhook to ingestion, signed with `key` (the stack's secret, or another one
 * to spoof it).
 */
export async function postPaystackWebhook(ingestionUrl: string, body: string, key: string): Promise<PostedWebhook> {
  const signature = createHmac('sha512', key).update(body).digest('hex');
  const status = await fetch(`${ingestionUrl}/v1/webhooks/paystack`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
    body,
    signal: AbortSignal.timeout(10_000),
  }).then(
    (r) => r.status,
    () => 0,
  );
  return { sha256: createHash('sha256').update(body).digest('hex'), status };
}
