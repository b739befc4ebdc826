import { dueTrigger, isTerminal, observe, type Activity, type RecoveryPolicy, type TransactionStatus } from '@settle/domain';
import { HEADERS, type AvroCodec, type MessageContext, type Topics, type TypedEvent, type VerificationRequestedV1 } from '@settle/messaging';
import { deterministicId, inTransaction, type Logger, type Pool } from '@settle/platform';
import type { Producer } from 'kafkajs';
import { WatchRepository } from './watch.repository.js';

/** Maps a message to the activity it stands for, or `null` when it is not activity. */
export function activityOf(event: TypedEvent): { activity: Activity; correlationId: string } | null {
  const at = event.payload.occurred_at;
  const correlationId = event.payload.correlation_id;
  switch (event.type) {
    case 'CheckoutRegistered':
      return { activity: { kind: 'registered', at }, correlationId };
    case 'CheckoutCompleted':
      return { activity: { kind: 'completed', at }, correlationId };
    case 'ProviderWebhookReceived':
      return { activity: { kind: 'webhook_received', at }, correlationId };
    case 'VerificationRequested':
      return { activity: { kind: 'verification_requested', at }, correlationId };
    case 'ConsensusResult':
      return { activity: { kind: 'outcome', at, terminal: isTerminal(event.payload.state_after as TransactionStatus) }, correlationId };
    default:
      return null;
  }
}

/**
 * The sweeper, a stream processor: it folds every transaction's activity (from the
 * transaction-events and consensus-results streams) into durable watches, and on each tick
 * publishes a `VerificationRequested` for every watch with more than the inactivity window
 * (45 s by default, spec sections 1 and 8) without activity. A published request re-arms the
 * watch, so a transaction that stays non-terminal is re-checked every window until it is
 * terminal: a missing webhook never means a lost payment.
 */
export class SweeperService {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly watches: WatchRepository,
    private readonly producer: Producer,
    private readonly codec: AvroCodec,
    private readonly topics: Topics,
    private readonly policy: RecoveryPolicy,
    private readonly tick: { intervalMs: number; batchSize: number },
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Folds one message into its watch; resolves once the watch is committed. */
  async handle(event: TypedEvent, _context: MessageContext): Promise<void> {
    const seen = activityOf(event);
    if (!seen) return;
    const reference = event.payload.reference;
    await inTransaction(this.pool, async (client) => {
      const stored = await this.watches.lock(client, reference);
      const next = observe(stored?.watch ?? null, reference, seen.activity, this.policy);
      await this.watches.save(client, next, stored?.correlationId ?? seen.correlationId);
    });
  }

  start(): void {
    const loop = () => {
      this.ticking = this.sweep()
        .then((published) => {
          if (published > 0) this.logger.info({ published }, 'verification requests published');
        })
        .catch((error: unknown) => this.logger.warn({ err: error }, 'sweep failed; retrying next tick'))
        .finally(() => {
          this.ticking = null;
          if (this.timer !== null) this.timer = setTimeout(loop, this.tick.intervalMs);
        });
    };
    this.timer = setTimeout(loop, this.tick.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /**
   * One tick: publishes requests for due watches (at most a batch) and re-arms them, in one
   * transaction; a failed publish rolls back so the watches stay due.
   *
   * @returns how many requests were published.
   */
  async sweep(): Promise<number> {
    const now = this.clock();
    return inTransaction(this.pool, async (client) => {
      const due = await this.watches.lockDue(client, now, this.tick.batchSize);
      if (due.length === 0) return 0;
      const messages = [];
      for (const { watch, correlationId } of due) {
        const trigger = dueTrigger(watch);
        const payload: VerificationRequestedV1 = {
          // Same watch, same due time: same id, so a re-sent request is de-duplicated downstream.
          event_id: deterministicId('VerificationRequested', 'sweeper', watch.reference, watch.dueAt ?? 0),
          occurred_at: now,
          correlation_id: correlationId ?? watch.reference,
          reference: watch.reference,
          trigger,
          requested_by: 'sweeper',
        };
        messages.push({
          key: watch.reference,
          value: await this.codec.encode('VerificationRequested', payload),
          headers: { [HEADERS.eventType]: 'VerificationRequested', [HEADERS.correlationId]: payload.correlation_id, [HEADERS.causationId]: payload.event_id },
        });
        this.logger.info({ reference: watch.reference, trigger, idleMs: now - watch.lastActivityAt }, 'transaction due; verification requested');
      }
      await this.producer.send({ topic: this.topics.transactionEvents, acks: -1, messages });
      await this.watches.rearm(client, due.map((d) => d.watch.reference), now + this.policy.inactivityMs);
      return due.length;
    });
  }
}
