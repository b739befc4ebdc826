import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChaosBed } from './bed.js';
import { startCommandChannel } from './commands.js';
import { collectFacts, deadLetterCounts, isQuiet, progressOf, type Progress } from './collect.js';
import type { Fault } from './faults.js';
import { checkInvariants, formatTable, type InvariantResult } from './invariants.js';
import { SCENARIOS } from '../demo/scenarios.js';
import { startLoad } from './load.js';
import type { PostedWebhook } from './load.js';

/** How one scenario is run. */
export interface RunOptions {
  /** Checkouts of the scenario's load. */
  count: number;
  /** Checkouts started per second. */
  ratePerSecond: number;
  /** Long run: the fault is injected again and again while the load runs (at most `repeats` times), unless it is {@link Fault.once}. */
  long?: boolean;
  repeats?: number;
  /** Longest wait for the system to become quiet after the load, milliseconds (default 120 000). */
  quietTimeoutMs?: number;
  /** Where progress lines go (default nowhere). */
  log?: (line: string) => void;
  /** A folder to copy every log of the stack into when an invariant fails (`<folder>/<scenario>/<instance>.log`). */
  keepLogsIn?: string;
}

/** What a scenario gave. */
export interface ScenarioReport {
  id: string;
  injected: string;
  checkouts: number;
  /** Checkouts whose registration never got through (each is named in `errors`). */
  notRegistered: number;
  errors: string[];
  /** Times the fault was injected. */
  injections: number;
  /** From the end of the (last) fault to the first settlement after it, milliseconds. */
  recoveryMs: number | null;
  /** From the end of the load to quiet, milliseconds; `null` when the wait timed out. */
  quietAfterMs: number | null;
  elapsedMs: number;
  results: InvariantResult[];
  ok: boolean;
  table: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `settle-producer` header of the load's commands: ingestion records its checkouts as `kafka:chaos-checkout-service`. */
export const COMMAND_PRODUCER = 'chaos-checkout-service';

/** Copies the log of every instance of the stack and of the customer backend into `dir`. */
function keepLogs(bed: ChaosBed, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const instance of Object.keys(bed.stack.control.pids())) writeFileSync(join(dir, `${instance}.log`), bed.stack.logs(instance));
  writeFileSync(join(dir, 'customer-backend.log'), bed.customer.logs());
}

/**
 * Runs one scenario: a steady checkout load, the fault injected once a third of it started
 * (in a long run, again every few seconds while the load runs, bounded by `repeats`), then a
 * wait until the system is quiet (every checkout terminal, outboxes empty, every grant delivered
 * and processed, stable for two polls; bounded), then the facts collected and the invariants
 * checked. A fault with a `commandShare` has that share of the load registered and completed with
 * commands on the checkout commands topic (its results read back), and two more invariants.
 */
export async function runScenario(bed: ChaosBed, fault: Fault, options: RunOptions): Promise<ScenarioReport> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const deadLettersBefore = await deadLetterCounts(bed);
  await fault.before?.(bed);
  const acknowledged: string[] = [];
  /** Lines the fault wrote, printed under the scenario's title. */
  const notes: string[] = [];
  const posted = (w: PostedWebhook) => {
    if (w.status === 200) acknowledged.push(w.sha256);
  };
  // A load that goes both ways in: its share of checkouts as commands on the checkout commands topic.
  const channel = fault.commandShare ? await startCommandChannel(bed, COMMAND_PRODUCER) : null;
  // A sustained load runs until the fault ended (bounded by 20 times the count), then stops.
  const sustained = fault.sustainLoad;
  const load = startLoad(bed, {
    count: sustained ? options.count * 20 : options.count,
    ratePerSecond: sustained?.ratePerSecond ?? options.ratePerSecond,
    tag: fault.id.replace(/[^a-z0-9]/g, ''),
    ...(fault.behaviourOf ? { behaviourOf: (i, outcome) => fault.behaviourOf!(i, outcome, options.count) } : {}),
    ...(channel && fault.commandShare ? { commands: { channel, share: fault.commandShare } } : {}),
  });
  let loadEnded = false;
  void load.done.then(() => (loadEnded = true));
  const third = Math.ceil(options.count / 3);
  const waitDeadline = Date.now() + 120_000;
  while (load.started() < third && Date.now() < waitDeadline) await sleep(50);
  /** Rows the fault checked itself (a failed one fails the scenario like any invariant). */
  const faultResults: InvariantResult[] = [];
  const context = {
    load,
    long: options.long ?? false,
    posted,
    log: (line: string) => notes.push(line),
    check: (r: InvariantResult) => faultResults.push(r),
    commands: channel,
  };
  let injections = 0;
  let faultEndedAt = Date.now();
  const repeats = options.long && !fault.once ? (options.repeats ?? 5) : 1;
  do {
    log(`  ${fault.id}: injecting (${injections + 1}) after ${load.started()} checkouts`);
    const endedAt = await fault.inject(bed, context);
    injections += 1;
    faultEndedAt = typeof endedAt === 'number' ? endedAt : Date.now();
    if (options.long && !loadEnded && injections < repeats) await sleep(5_000);
  } while (options.long && !loadEnded && injections < repeats);
  if (sustained) load.stop();
  await load.done;
  // A few fresh paid checkouts after the fault, so that recovery is measured on new work even
  // when the load finished during the fault.
  const probe = startLoad(bed, { count: 4, ratePerSecond: 4, tag: `${fault.id.replace(/[^a-z0-9]/g, '')}probe`, outcomes: [SCENARIOS[0]!] });
  await probe.done;
  const checkouts = [...load.checkouts, ...probe.checkouts];
  const loadEndedAt = Date.now();
  log(`  ${fault.id}: load done (${load.checkouts.length} checkouts) ${((loadEndedAt - started) / 1000).toFixed(1)} s; waiting for quiet`);

  let quietAfterMs: number | null = null;
  let quietPolls = 0;
  let last: Progress | null = null;
  const quietDeadline = Date.now() + (options.quietTimeoutMs ?? 120_000);
  while (Date.now() < quietDeadline) {
    last = await progressOf(bed, checkouts).catch(() => null);
    quietPolls = last && isQuiet(last) ? quietPolls + 1 : 0;
    if (quietPolls >= 2) {
      quietAfterMs = Date.now() - loadEndedAt;
      break;
    }
    await sleep(500);
  }
  if (quietAfterMs === null) log(`  ${fault.id}: not quiet after the wait: ${JSON.stringify(last)}`);

  const facts = await collectFacts(bed, checkouts, {
    acknowledgedWebhooks: acknowledged,
    deadLettersBefore,
    faultEndedAt,
    ...(fault.recoveryBy ? { recoveryBy: fault.recoveryBy } : {}),
    ...(channel ? { commands: { producer: channel.producer, sent: channel.sent } } : {}),
  }).finally(() => channel?.close());
  const results = [...checkInvariants(facts, fault.expect), ...faultResults];
  await fault.after?.(bed);
  const notRegistered = checkouts.filter((c) => !c.registered);
  const errors = checkouts.flatMap((c) => (c.error ? [`${c.reference}: ${c.error}`] : []));
  const elapsedMs = Date.now() - started;
  const ok = results.every((r) => r.ok) && errors.length === 0;
  if (!ok && options.keepLogsIn) keepLogs(bed, join(options.keepLogsIn, fault.id));
  const title =
    `Scenario ${fault.id}: ${fault.injected}\n` +
    `${checkouts.length} checkouts (${notRegistered.length} never registered), fault injected ${injections}×, ` +
    `recovery (first ${facts.recoveryBy}) ${facts.recoveryMs === null ? 'none' : `${(facts.recoveryMs / 1000).toFixed(1)} s`}, ` +
    `quiet ${quietAfterMs === null ? 'never' : `${(quietAfterMs / 1000).toFixed(1)} s`} after the load, ${(elapsedMs / 1000).toFixed(1)} s in all` +
    notes.map((n) => `\n${n}`).join('');
  return {
    id: fault.id,
    injected: fault.injected,
    checkouts: checkouts.length,
    notRegistered: notRegistered.length,
    errors,
    injections,
    recoveryMs: facts.recoveryMs,
    quietAfterMs,
    elapsedMs,
    results,
    ok,
    table: formatTable(title, results),
  };
}
