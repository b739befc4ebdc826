/** What a consumer loop hands its application: decoded messages with their context, and the errors that decide their fate. */
import type { Context } from '@opentelemetry/api';
import { SettleError, type ErrorKind } from '@settle/domain';
import type { TypedEvent } from './contracts.js';

/**
 * A message can never be processed, however often it is retried (bad payload, a broken
 * business rule): kind `invalid`, so it goes to the dead-letter topic, visibly, and the
 * partition moves on.
 */
export class PermanentMessageError extends SettleError {
  readonly kind: ErrorKind = 'invalid';

  /**
   * @param code - stable code, `AREA.REASON`, repeated in the dead-letter record's headers.
   * @param message - human-readable explanation; never a secret.
   */
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PermanentMessageError';
  }
}

/** Where a message came from, for logs and dead-letter headers. */
export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /** Kafka timestamp, epoch ms. */
  timestamp: number;
  headers: Record<string, unknown>;
  /**
   * The OpenTelemetry context of the message's `process` span (docs/observability.md,
   * "Traces"): what the message's work continues, its provider calls and the outbox rows it
   * causes (`traceCarrierOf(context.trace)`). Set by the consumer loop; absent where a test
   * builds a context by hand. A non-recording span while tracing is off.
   */
  trace?: Context;
}

/** One decoded message of a batch. */
export interface BatchItem {
  event: TypedEvent;
  context: MessageContext;
}

/**
 * Handles the decoded messages of one fetched batch (one topic-partition, in offset order)
 * at once, for a processor that writes its state in one transaction per batch. Resolve only
 * once the effects are durable; return the items that can never be processed (by index into
 * `items`, with their permanent error) for the dead-letter topic. A throw is transient: the
 * whole batch is retried. A returned error that the loop's `abandonBatchWhen` accepts gives the
 * whole batch up instead (a handler of several partitions at once names so the messages of a
 * partition it no longer owns, having committed the others).
 */
export type BatchHandler = (items: readonly BatchItem[]) => Promise<ReadonlyArray<{ index: number; error: unknown }>>;
