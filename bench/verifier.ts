import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { infra, startStack } from '@settle/testing';

/** Runs `work` over `items` with at most `concurrency` in flight. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * Verifications per second through the real stack (ingestion's outbox, Kafka, the verifier's
 * provider query, consensus and outbox, Kafka, the ledger projector's append and read model)
 * against the sandbox answering with zero latency, compared in the same run with the bare
 * cost of the same number of sandbox verify calls made directly. The ratio is the price of
 * doing it properly: durable hand-offs, consensus and the ledger.
 *
 * Arguments: `[count]` (default 2000).
 */
export async function verifierBenchmark(args: string[]): Promise<void> {
  const count = Number(args[0] ?? 2_000);
  const concurrency = 32;
  const stack = await startStack({ inactivityMs: 3_600_000, logLevel: 'warn', adminDatabaseUrl: infra.benchAdminDatabaseUrl });
  try {
    const references = Array.from({ length: count }, (_, i) => `ref_bench_${randomBytes(4).toString('hex')}_${i}`);
    await pool(references, concurrency, async (reference) => {
      const email = `bench.${reference}@example.com`;
      await stack.sandbox.create({ reference, amount: 250_000, currency: 'NGN', email, behaviour: { webhook: 'drop' } });
      await stack.sandbox.pay(reference);
      const registered = await stack.ingestion.register({
        provider: 'paystack',
        reference,
        amount: 250_000,
        currency: 'NGN',
        user_id: `user-${reference}`,
        customer: { email },
        entitlement: 'pro',
        access_period: 'P1M',
      });
      if (registered.status !== 202) throw new Error(`registration failed: ${registered.status}`);
    });

    // Baseline: the bare sandbox verify loop, same references, same concurrency.
    const agent = new Agent({ connections: concurrency });
    const baselineStart = performance.now();
    await pool(references, concurrency, async (reference) => {
      const response = await request(`${stack.sandboxUrl}/transaction/verify/${reference}`, {
        headers: { authorization: `Bearer ${stack.paystackSecret}` },
        dispatcher: agent,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`sandbox answered ${response.statusCode}`);
    });
    const baselineSeconds = (performance.now() - baselineStart) / 1000;
    await agent.close();

    // Through the stack: one verification request each (wait_ms=0), then wait for all results.
    const start = performance.now();
    await pool(references, concurrency, async (reference) => {
      const response = await fetch(`${stack.ingestionUrl}/v1/checkouts/${reference}/verify?wait_ms=0`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.ingestion.apiKey}` },
      });
      await response.text();
    });
    const enqueuedSeconds = (performance.now() - start) / 1000;
    for (;;) {
      const { rows } = await stack.db.query<{ settled: number }>(
        `SELECT count(*)::int AS settled FROM read_model.transaction_status WHERE state = 'SETTLED_CONSENSUS'`,
      );
      if (rows[0]!.settled >= count) break;
      if (performance.now() - start > 600_000) throw new Error(`only ${rows[0]!.settled}/${count} settled after 10 min`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stackSeconds = (performance.now() - start) / 1000;
    const ledger = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger.events');

    const stackRate = count / stackSeconds;
    const baselineRate = count / baselineSeconds;
    console.log(`verifications:            ${count} (concurrency ${concurrency}), ledger entries written: ${ledger.rows[0]!.n}`);
    console.log(
      `through the stack:        ${stackSeconds.toFixed(2)} s → ${stackRate.toFixed(0)} verifications/s (requests enqueued in ${enqueuedSeconds.toFixed(2)} s)`,
    );
    console.log(`bare sandbox call loop:   ${baselineSeconds.toFixed(2)} s → ${baselineRate.toFixed(0)} calls/s`);
    console.log(`ratio (stack / baseline): ${(stackRate / baselineRate).toFixed(3)}  (overhead ×${(baselineRate / stackRate).toFixed(1)})`);
  } finally {
    await stack.stop();
  }
}
