/**
 * Benchmarks: `npm run bench -- <name>` (or `./settle bench <name>`). Each prints its numbers
 * and the machine it ran on; docs/benchmarks.md records the reported runs.
 */
import { cpus, totalmem } from 'node:os';
import { consoleBenchmark } from './console.js';
import { deliveryBenchmark } from './delivery.js';
import { e2eBenchmark } from './e2e/index.js';
import { ingestBenchmark } from './ingest.js';
import { intakeBenchmark } from './intake.js';
import { ledgerBenchmark } from './ledger.js';
import { reconcileBenchmark } from './reconcile.js';
import { sweeperBenchmark } from './sweeper.js';
import { verifierBenchmark } from './verifier.js';

const BENCHMARKS: Record<string, (args: string[]) => Promise<void>> = {
  verifier: verifierBenchmark,
  ingest: ingestBenchmark,
  sweeper: sweeperBenchmark,
  ledger: ledgerBenchmark,
  delivery: deliveryBenchmark,
  e2e: e2eBenchmark,
  console: consoleBenchmark,
  reconcile: reconcileBenchmark,
  intake: intakeBenchmark,
};

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const selected = name ? [name] : Object.keys(BENCHMARKS);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
  for (const n of selected) {
    const run = BENCHMARKS[n];
    if (!run) throw new Error(`unknown benchmark ${n}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    console.log(`\n== ${n} ==`);
    await run(args);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
