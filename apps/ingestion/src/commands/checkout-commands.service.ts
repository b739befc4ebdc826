import { Inject, Injectable } from '@nestjs/common';
import { isTerminal, literalOf, TRANSACTION_STATUSES } from '@settle/domain';
import { problemOf, unstorableValueText } from '@settle/http';
import {
  HEADERS,
  headerText,
  Outbox,
  PermanentMessageError,
  type BatchItem,
  type CheckoutCommandResultV1,
  type RegisterCheckoutV1,
  type OutboxRelay,
  type OutboxMessage,
} from '@settle/messaging';
import { deterministicId, inTransaction, ProblemError, traceCarrierOf, type Logger, type Pool, type PoolClient } from '@settle/platform';
import { CheckoutError } from '../checkouts/checkout.errors.js';
import { CheckoutIntake } from '../checkouts/checkout-intake.js';
import { pathReference } from '../checkouts/checkout.request.js';
import { CheckoutRepository } from '../checkouts/checkout.repository.js';
import { LOGGER, METRICS, OUTBOX, OUTBOX_RELAY, PG_POOL } from '../tokens.js';
import { VerificationRequests, type VerificationRequestOutcome } from '../verification/verification-requests.js';
import type { IngestionMetrics } from '../webhooks/webhook.metrics.js';
import { registrationBodyOf } from './command-bodies.js';
import {
  acceptedResult,
  CHECKOUT_COMMAND_TYPES,
  refusedResult,
  verifiedResult,
  type CheckoutCommandPayload,
  type CheckoutCommandType,
  type CheckoutStanding,
} from './command-results.js';
import { readModelExists } from './read-model-ready.js';
import { VerificationWaiters } from './verification-waiters.js';

/** How long a `VerifyCheckout` waits for its verification's outcome before it is answered `pending`, milliseconds. */
export const COMMAND_VERIFY_WAIT_MS = 30_000;

/** Most commands handled in one transaction: a fetch holds up to a partition's megabyte (thousands). */
export const COMMANDS_PER_TRANSACTION = 500;

/** What a checkout stands at before the ledger has a verification result (or a read model). */
const FRESH: CheckoutStanding = { state: 'PENDING', entitlementStatus: 'LOCKED' };

/** One command's answer, built once the batch's standings are read. */
type Draft = { reference: string; trace: BatchItem['context']['trace']; build: (standing: CheckoutStanding) => CheckoutCommandResultV1 };

/** A command the topic can carry: its type narrowed with its payload. */
type Command = { type: CheckoutCommandType; payload: CheckoutCommandPayload };

function isCommand(event: BatchItem['event']): event is BatchItem['event'] & Command {
  return (CHECKOUT_COMMAND_TYPES as readonly string[]).includes(event.type);
}

/**
 * The checkout commands topic's side of the intake (docs/api.md, "Two ways in"): a batch of
 * `RegisterCheckout`, `CompleteCheckout` and `VerifyCheckout` commands is handled in PostgreSQL
 * transactions of at most {@link COMMANDS_PER_TRANSACTION} commands (consecutive registrations in
 * three statements: `CheckoutIntake.registerAll`), each command through the same rules as its HTTP twin
 * ({@link CheckoutIntake}, `VerificationRequests`), and answered on the results topic through the
 * same outbox, in the same transaction; the consumer loop commits the offsets after it.
 *
 * - A refusal (validation, `CHECKOUT.CONFLICT`, `CHECKOUT.NOT_FOUND`, a command without its
 *   `settle-producer` header: `COMMAND.PRODUCER_UNNAMED`) is a result with the HTTP API's problem
 *   details, never a dead letter: the producer reads it.
 * - A record of another type on the topic is dead-lettered (`COMMAND.UNKNOWN_TYPE`), and so is a
 *   command whose reference or correlation id holds text PostgreSQL cannot store
 *   (`REQUEST.INVALID_CHARACTER`: its result could not repeat them); a record that cannot be
 *   decoded is dead-lettered by the loop before it gets here.
 * - An infrastructure error (the database away) throws: the loop retries the whole batch.
 * - Each partition's next offset is stored in the batch's transaction
 *   (`ingestion.checkout_command_offsets`): a batch delivered again after a crash between the
 *   commit and the offset commit skips the commands already answered, so each is answered once.
 */
@Injectable()
export class CheckoutCommands {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(OUTBOX_RELAY) private readonly relay: Pick<OutboxRelay, 'wake'>,
    @Inject(METRICS) private readonly metrics: IngestionMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly intake: CheckoutIntake,
    private readonly checkouts: CheckoutRepository,
    private readonly verifications: VerificationRequests,
    private readonly waiters: VerificationWaiters,
  ) {}

  /**
   * Handles one fetched batch, in transactions of at most {@link COMMANDS_PER_TRANSACTION}
   * commands each (a burst's fetch holds thousands: their results go out as each part commits,
   * and a transient error retries one part, not the fetch).
   *
   * @returns the records to dead-letter (another record type on the commands topic).
   * @throws database errors: the part in hand was not committed, the loop retries the batch
   *   (the parts committed before it are skipped then, by their stored offsets).
   */
  async handleBatch(items: readonly BatchItem[], clock: () => Date = () => new Date()): Promise<Array<{ index: number; error: unknown }>> {
    const deadLetters: Array<{ index: number; error: unknown }> = [];
    for (let start = 0; start < items.length; start += COMMANDS_PER_TRANSACTION) {
      const part = items.slice(start, start + COMMANDS_PER_TRANSACTION);
      for (const { index, error } of await this.handlePart(part, clock())) deadLetters.push({ index: start + index, error });
    }
    return deadLetters;
  }

  /** One transaction: the part's commands, their results and the part's offsets. */
  private async handlePart(items: readonly BatchItem[], now: Date): Promise<Array<{ index: number; error: unknown }>> {
    const deadLetters: Array<{ index: number; error: unknown }> = [];
    let waiting = false;
    let skipped = 0;
    const verifications: VerificationRequestOutcome[] = [];
    const results = await inTransaction(this.pool, async (client) => {
      const done = await this.answeredUpTo(client, items);
      const readModel = await readModelExists(client);
      const todo: Array<{ command: Command; item: BatchItem }> = [];
      for (const [index, item] of items.entries()) {
        const { event, context } = item;
        // Checked before the offsets, so a batch delivered again dead-letters the same records.
        if (!isCommand(event)) {
          deadLetters.push({ index, error: new PermanentMessageError('COMMAND.UNKNOWN_TYPE', `${event.type} is not a checkout command`) });
          continue;
        }
        // Its result repeats these: text PostgreSQL cannot store would fail the part on every retry.
        const unstorable = unstorableValueText({ reference: event.payload.reference, correlation_id: event.payload.correlation_id });
        if (unstorable.length > 0) {
          const { path, message } = unstorable[0]!;
          deadLetters.push({ index, error: new PermanentMessageError('REQUEST.INVALID_CHARACTER', `${path}: ${message}; no result can repeat it`) });
          continue;
        }
        if (BigInt(context.offset) < (done.get(partitionKey(context)) ?? -1n)) {
          skipped++;
          continue;
        }
        todo.push({ command: event, item });
      }
      const drafts: Draft[] = [];
      for (const run of runs(todo)) {
        const answered =
          run[0]!.command.type === 'RegisterCheckout'
            ? await this.register(client, run, now)
            : [await this.answer(client, run[0]!.command, run[0]!.item, now, readModel, verifications)];
        for (const [i, draft] of answered.entries()) {
          if (draft.waits) waiting = true;
          drafts.push({ reference: run[i]!.command.payload.reference, trace: run[i]!.item.context.trace, build: draft.build });
        }
      }
      const standings = readModel
        ? await standingsOf(
            client,
            drafts.map((d) => d.reference),
          )
        : new Map<string, CheckoutStanding>();
      const messages: OutboxMessage<'CheckoutCommandResult'>[] = drafts.map((d) => ({
        type: 'CheckoutCommandResult',
        payload: d.build(standings.get(d.reference) ?? FRESH),
        trace: traceCarrierOf(d.trace),
      }));
      if (messages.length > 0) await this.outbox.enqueue(client, messages);
      await this.advance(client, items);
      return messages.map((m) => m.payload);
    });
    for (const r of results) this.metrics.checkoutCommands.inc({ command: r.command, outcome: r.outcome, code: r.problem?.code ?? '' });
    for (const outcome of verifications) this.verifications.count('customer_returned', outcome);
    if (skipped > 0) {
      // A batch delivered again after a crash: expected, and few. Many, or on every batch, means the
      // topic was recreated or its offsets reset while PostgreSQL kept its own (docs/operations.md).
      this.logger.warn(
        { skipped, partitions: partitionsOf(items).map((p) => `${p.topic}:${p.partition}`) },
        'checkout commands skipped: answered before, by their stored offsets',
      );
    }
    // Results, and the registrations, completions and verification requests they answer.
    if (results.length > 0) this.relay.wake();
    if (waiting) this.waiters.wake();
    return deadLetters;
  }

  /**
   * A run of registrations (distinct references, in partition order) through the intake at once
   * (`CheckoutIntake.registerAll`: three statements for the run), each answered as alone.
   */
  private async register(
    client: PoolClient,
    run: ReadonlyArray<{ command: Command; item: BatchItem }>,
    now: Date,
  ): Promise<Array<{ build: Draft['build']; waits: boolean }>> {
    const named = run.map(({ command, item }) => ({ command, producer: producerOf(item, command) }));
    const requests = named.flatMap(({ command, producer }) =>
      typeof producer === 'string' ? [{ input: registrationBodyOf(command.payload as RegisterCheckoutV1), submittedBy: `kafka:${producer}` }] : [],
    );
    const outcomes = await this.intake.registerAll(client, requests, now);
    let next = 0;
    return named.map(({ command, producer }) => {
      const outcome = typeof producer === 'string' ? outcomes[next++]! : producer;
      if (outcome instanceof Error) return refusal(command, outcome, now);
      const { created } = outcome;
      // A new registration has no read-model row yet: it stands where every checkout starts.
      return {
        build: (standing) => acceptedResult('RegisterCheckout', command.payload, created ? 'accepted' : 'duplicate', created ? FRESH : standing, now),
        waits: false,
      };
    });
  }

  /** One command through its HTTP twin's rules; a refusal becomes its result, a transient error throws. */
  private async answer(
    client: PoolClient,
    command: Command,
    item: BatchItem,
    now: Date,
    readModel: boolean,
    verifications: VerificationRequestOutcome[],
  ): Promise<{ build: Draft['build']; waits: boolean }> {
    const { type, payload } = command;
    try {
      const producer = producerOf(item, command);
      if (typeof producer !== 'string') throw producer;
      switch (type) {
        case 'RegisterCheckout': {
          const { created } = await this.intake.register(client, registrationBodyOf(payload as RegisterCheckoutV1), now, `kafka:${producer}`);
          return { build: (standing) => acceptedResult(type, payload, created ? 'accepted' : 'duplicate', created ? FRESH : standing, now), waits: false };
        }
        case 'CompleteCheckout': {
          const { completed } = await this.intake.complete(client, payload.reference, now);
          return { build: (standing) => acceptedResult(type, payload, completed ? 'accepted' : 'duplicate', standing, now), waits: false };
        }
        case 'VerifyCheckout':
          return await this.verify(client, payload, producer, now, readModel, verifications);
      }
    } catch (error) {
      return refusal(command, error, now);
    }
  }

  /**
   * `POST /v1/checkouts/{reference}/verify`'s rules, answered twice: `accepted` now (the request
   * published, or sharing a pending one), `verified` once the read model reflects the answer
   * ({@link VerificationWaiters}); once only when the outcome is already known (a terminal
   * checkout: `not_needed`; a provider answer younger than the coalescing window: `completed`).
   *
   * @throws CheckoutError `CHECKOUT.NOT_FOUND`.
   */
  private async verify(
    client: PoolClient,
    payload: CheckoutCommandPayload,
    producer: string,
    now: Date,
    readModel: boolean,
    /** Where the request's outcome is kept, to be counted once the part commits. */
    verifications: VerificationRequestOutcome[],
  ): Promise<{ build: Draft['build']; waits: boolean }> {
    const reference = pathReference(payload.reference);
    const current = readModel ? await this.checkouts.status(reference, client) : null;
    if (current && isTerminal(literalOf(TRANSACTION_STATUSES, current.state, 'transaction status'))) {
      return {
        build: (standing) => verifiedResult(payload, standing, { verification: 'not_needed', verdict: current.lastVerdict, coalesced: false }, now),
        waits: false,
      };
    }
    const requestId = deterministicId('VerificationRequested', payload.event_id);
    const outcome = await this.verifications.requestIn(
      client,
      { reference, trigger: 'customer_returned', requestedBy: `kafka:${producer}`, requestId, now },
      readModel,
    );
    if (!outcome) throw new CheckoutError('CHECKOUT.NOT_FOUND', `No checkout is registered under reference ${reference}`);
    verifications.push(outcome);
    if (outcome.kind === 'requested' || (outcome.kind === 'coalesced' && outcome.reason === 'pending')) {
      const coalesced = outcome.kind === 'coalesced';
      await this.waiters.add(client, {
        causationId: payload.event_id,
        reference,
        correlationId: payload.correlation_id,
        requestId: outcome.requestId,
        coalesced,
        waitUntil: new Date(now.getTime() + COMMAND_VERIFY_WAIT_MS),
      });
      return { build: (standing) => acceptedResult('VerifyCheckout', payload, 'accepted', standing, now, { coalesced }), waits: true };
    }
    // Answered from a provider answer younger than the window (or a rejected body's: never here).
    const latest = current?.lastVerdict ?? null;
    return { build: (standing) => verifiedResult(payload, standing, { verification: 'completed', verdict: latest, coalesced: true }, now), waits: false };
  }

  /** Per partition of the batch, the offset after the last command answered (locked until the commit). */
  private async answeredUpTo(client: PoolClient, items: readonly BatchItem[]): Promise<Map<string, bigint>> {
    const keys = partitionsOf(items);
    // A row to lock from the partition's first batch on: a member that lost the partition in a
    // rebalance and one that got it wait for each other here, whichever comes first.
    await client.query(
      `INSERT INTO ingestion.checkout_command_offsets (topic, partition, next_offset)
       SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[]) ON CONFLICT (topic, partition) DO NOTHING`,
      [keys.map((k) => k.topic), keys.map((k) => k.partition), keys.map(() => '0')],
    );
    const { rows } = await client.query<{ topic: string; partition: number; next_offset: string }>(
      `SELECT topic, partition, next_offset FROM ingestion.checkout_command_offsets
        WHERE (topic, partition) IN (SELECT * FROM unnest($1::text[], $2::int[])) FOR UPDATE`,
      [keys.map((k) => k.topic), keys.map((k) => k.partition)],
    );
    return new Map(rows.map((r) => [`${r.topic}:${r.partition}`, BigInt(r.next_offset)]));
  }

  /** Stores, per partition of the batch, the offset after its last record. */
  private async advance(client: PoolClient, items: readonly BatchItem[]): Promise<void> {
    const keys = partitionsOf(items);
    if (keys.length === 0) return;
    await client.query(
      `INSERT INTO ingestion.checkout_command_offsets (topic, partition, next_offset)
       SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[])
       ON CONFLICT (topic, partition) DO UPDATE SET next_offset = GREATEST(ingestion.checkout_command_offsets.next_offset, EXCLUDED.next_offset)`,
      [keys.map((k) => k.topic), keys.map((k) => k.partition), keys.map((k) => k.next.toString())],
    );
  }
}

/** A producer's name: 1 to 200 printable ASCII characters (a client id, or a principal such as `User:CN=orders, O=Shop`). */
const PRODUCER_NAME = /^[\x20-\x7e]{1,200}$/;

/**
 * Who sent a command (its `settle-producer` header, trimmed), or why it cannot be taken: no
 * usable name (`COMMAND.PRODUCER_UNNAMED`), or a record keyed by anything but its reference
 * (`COMMAND.KEY_MISMATCH`: its commands could land on different partitions and lose their order).
 */
function producerOf(item: BatchItem, command: Command): string | ProblemError {
  const producer = headerText(item.context.headers, HEADERS.producer)?.trim();
  if (!producer || !PRODUCER_NAME.test(producer)) {
    return new ProblemError(
      400,
      'COMMAND.PRODUCER_UNNAMED',
      'Producer not named',
      `Commands must name their producer in the ${HEADERS.producer} header: 1 to 200 printable ASCII characters`,
    );
  }
  if (item.context.key !== command.payload.reference) {
    return new ProblemError(
      400,
      'COMMAND.KEY_MISMATCH',
      'Key is not the reference',
      'A command must be keyed by its reference, so that one checkout’s commands stay in order on one partition',
    );
  }
  return producer;
}

/**
 * A command's refusal as its result, with the problem details the HTTP API answers for it.
 *
 * @throws the error itself when it is not a refusal (5xx: the database or another dependency
 *   failed), so that the loop retries the batch.
 */
function refusal(command: Command, error: unknown, now: Date): { build: Draft['build']; waits: boolean } {
  const problem = problemOf(error);
  if (problem.status >= 500) throw error;
  return { build: () => refusedResult(command.type, command.payload, problem, now), waits: false };
}

/**
 * The part's commands in order, cut into runs the intake handles at once: consecutive
 * registrations of distinct references (a repeat starts a new run, so it sees the first), and
 * every other command alone. Partition order is kept: a completion after a registration sees it.
 */
function runs<T extends { command: Command }>(todo: readonly T[]): T[][] {
  const out: T[][] = [];
  let run: T[] = [];
  let references = new Set<string>();
  for (const entry of todo) {
    const joins = entry.command.type === 'RegisterCheckout' && run[0]?.command.type === 'RegisterCheckout' && !references.has(entry.command.payload.reference);
    if (!joins && run.length > 0) {
      out.push(run);
      run = [];
      references = new Set();
    }
    run.push(entry);
    references.add(entry.command.payload.reference);
  }
  if (run.length > 0) out.push(run);
  return out;
}

function partitionKey(context: { topic: string; partition: number }): string {
  return `${context.topic}:${context.partition}`;
}

/** The batch's partitions, each with the offset after its last record. */
function partitionsOf(items: readonly BatchItem[]): Array<{ topic: string; partition: number; next: bigint }> {
  const next = new Map<string, { topic: string; partition: number; next: bigint }>();
  for (const { context } of items) {
    const after = BigInt(context.offset) + 1n;
    const known = next.get(partitionKey(context));
    if (!known || known.next < after) next.set(partitionKey(context), { topic: context.topic, partition: context.partition, next: after });
  }
  return [...next.values()];
}

/** The read model's state and entitlement status of each reference that has a row. */
async function standingsOf(client: PoolClient, references: readonly string[]): Promise<Map<string, CheckoutStanding>> {
  if (references.length === 0) return new Map();
  const { rows } = await client.query<{ reference: string; state: string; entitlement_status: string }>(
    'SELECT reference, state, entitlement_status FROM read_model.transaction_status WHERE reference = ANY($1::text[])',
    [[...new Set(references)]],
  );
  return new Map(rows.map((r) => [r.reference, { state: r.state, entitlementStatus: r.entitlement_status }]));
}
