/**
 * Unauthenticated amplification, end to end (docs/webhooks.md, "Spoofed webhooks and repeated
 * verifications"): floods of spoofed webhooks and of `/verify` calls for one pending reference
 * reach the provider (the sandbox, which counts its verify calls) a bounded number of times,
 * and an honest checkout paid meanwhile settles on its own webhook: the provider's circuit
 * breaker stayed closed. The flooded reference's provider answers 502 to every call, so that
 * without coalescing each spoof would be one failed verification, and the flood would be the
 * failed majority of the breaker's window (PROVIDER_BREAKER_FAILURE_RATIO 0.5 of at least
 * PROVIDER_BREAKER_MIN_VERIFICATIONS, 10) and open it for every Paystack checkout.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil, type SandboxBehaviour } from '../../scripts/ops/clients.js';
import { startStack, type RunningStack } from '@settle/testing';

/** Long enough that the sweeper never queries during the test: every provider call is the flood's or the webhook's. */
const INACTIVITY_MS = 120_000;
/** Ingestion's coalescing window here, milliseconds: longer than the whole flood, on any machine. */
const COALESCE_MS = 30_000;
/** Attempts of one verification (PROVIDER_RETRY_MAX_ATTEMPTS, default 4): a failing one calls this often. */
const ATTEMPTS_PER_VERIFICATION = 4;
let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack({ inactivityMs: INACTIVITY_MS, env: { ingestion: { SETTLE_VERIFY_COALESCE_MS: String(COALESCE_MS) } } });
});

afterAll(async () => {
  await stack?.stop();
});

/** A registered Paystack checkout, unpaid, with the sandbox's knobs. */
async function pendingCheckout(behaviour: SandboxBehaviour): Promise<string> {
  const reference = `ref_flood_${randomBytes(6).toString('hex')}`;
  const email = `payer.${reference}@example.com`;
  expect((await stack.sandbox.create({ reference, amount: 500_000, currency: 'NGN', email, behaviour })).status).toBe(201);
  const registered = await stack.ingestion.register({
    provider: 'paystack',
    reference,
    amount: 500_000,
    currency: 'NGN',
    user_id: `user-${reference}`,
    customer: { email },
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  });
  expect(registered.status).toBe(202);
  return reference;
}

/** `count` spoofed Paystack webhooks for the reference, distinct bodies, wrong signatures, all at once; each answers 401. */
async function spoofFlood(reference: string, count: number): Promise<void> {
  const statuses = await Promise.all(
    Array.from({ length: count }, async () => {
      const body = JSON.stringify({ event: 'charge.success', data: { reference, amount: 500_000, nonce: randomBytes(8).toString('hex') } });
      const answer = await fetch(`${stack.ingestionUrl}/v1/webhooks/paystack`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-paystack-signature': randomBytes(64).toString('hex') },
        body,
      });
      await answer.body?.cancel();
      return answer.status;
    }),
  );
  expect(statuses).toEqual(statuses.map(() => 401));
}

/** The latest verification the read model holds for a reference. */
async function latestVerification(reference: string): Promise<{ trigger: string; verdict: string; state: string } | undefined> {
  const { rows } = await stack.db.query<{ trigger: string; verdict: string; state: string }>(
    'SELECT trigger, verdict, state FROM read_model.latest_verification WHERE reference = $1',
    [reference],
  );
  return rows[0];
}

/** The sum of a counter's series in a Prometheus text exposition whose labels include these. */
function counter(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const series = new Map(match[2]!.split(',').map((pair) => pair.split('=') as [string, string]));
    if (Object.entries(labels).every(([k, v]) => series.get(k) === `"${v}"`)) sum += Number(match[3]);
  }
  return sum;
}

const metricsOf = async (url: string) => (await fetch(url)).text();

describe('a flood for one pending reference', () => {
  it('40 spoofed webhooks reach the provider once; an honest checkout spoofed before its payment still settles on its webhook, breaker closed', async () => {
    const flooded = await pendingCheckout({ failures: { mode: '502', times: 100 }, webhook: 'drop' });
    const honest = await pendingCheckout({});

    // The flooded reference first, alone: without coalescing, its failing verifications would
    // follow one another and open the circuit before anything else reached the provider.
    await spoofFlood(flooded, 40);
    await waitUntil(
      'the flooded reference to be verified once',
      30_000,
      async () => (await latestVerification(flooded))?.verdict === 'unreachable' || undefined,
    );
    // Then a flood for the honest checkout, before its payment: its one request is answered (still clearing: not paid yet).
    await spoofFlood(honest, 40);
    await waitUntil('the honest reference to be verified once', 30_000, async () => (await latestVerification(honest))?.verdict === 'clearing' || undefined);
    // More of the same within the window adds nothing.
    await Promise.all([spoofFlood(flooded, 20), spoofFlood(honest, 20)]);

    expect((await stack.sandbox.pay(honest)).status).toBe(200);
    expect((await stack.ingestion.complete(honest)).status).toBe(202);
    const settled = await waitUntil('the honest checkout to settle on its webhook', 30_000, async () => {
      const latest = await latestVerification(honest);
      return latest?.state === 'SETTLED_CONSENSUS' ? latest : undefined;
    });
    expect(settled).toEqual({ trigger: 'webhook_received', verdict: 'cleared', state: 'SETTLED_CONSENSUS' });

    const floodedCalls = (await stack.sandbox.inspect(flooded)).body.verifyCalls;
    expect(floodedCalls).toBeGreaterThanOrEqual(1);
    expect(floodedCalls).toBeLessThanOrEqual(ATTEMPTS_PER_VERIFICATION);
    // One call for the spoofed request before the payment, one for the webhook.
    expect((await stack.sandbox.inspect(honest)).body.verifyCalls).toBe(2);

    // The webhook's verification was never refused by an open circuit.
    const verifier = await metricsOf(stack.metricsUrls.verifier);
    expect(counter(verifier, 'settle_verifications_total', { trigger: 'webhook_received', verdict: 'cleared' })).toBe(1);
    expect(counter(verifier, 'settle_verifications_total', { trigger: 'webhook_received', verdict: 'unreachable' })).toBe(0);
    expect(counter(verifier, 'settle_verifications_total', { trigger: 'webhook_signature_rejected', verdict: 'unreachable' })).toBe(1);
    const ingestion = await metricsOf(`${stack.ingestionUrl}/metrics`);
    const coalesced = (reason: string) =>
      counter(ingestion, 'settle_verification_requests_total', { trigger: 'webhook_signature_rejected', outcome: 'coalesced', reason });
    expect(counter(ingestion, 'settle_verification_requests_total', { trigger: 'webhook_signature_rejected', outcome: 'requested' })).toBe(2);
    expect(coalesced('pending') + coalesced('recent')).toBe(118);
  });

  it('30 /verify calls at once reach the provider once; every caller gets the state', async () => {
    const reference = await pendingCheckout({ webhook: 'drop' });
    const answers = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const answer = await fetch(`${stack.ingestionUrl}/v1/checkouts/${reference}/verify?wait_ms=10000`, {
          method: 'POST',
          headers: { authorization: `Bearer ${stack.ingestion.apiKey}` },
        });
        return { status: answer.status, body: (await answer.json()) as { state: string; verification: string; verdict: string | null; coalesced: boolean } };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(answers.filter((a) => !a.body.coalesced)).toHaveLength(1);
    // Not paid: Paystack says `abandoned`, which is still clearing.
    expect(answers.map((a) => [a.body.state, a.body.verification, a.body.verdict])).toEqual(answers.map(() => ['RECOVERING', 'completed', 'clearing']));
    expect((await stack.sandbox.inspect(reference)).body.verifyCalls).toBe(1);
  });
});
