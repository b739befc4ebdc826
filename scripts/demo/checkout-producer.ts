/**
 * The example checkout producer (examples/checkout-producer, plain JavaScript with its own
 * dependencies, installed by `scripts/local/stack.sh`), loaded as the library an upstream service
 * imports: the demo sends part of its checkouts' commands over Kafka through it. These types
 * describe the part of its interface the demo uses (its JSDoc is the reference).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CheckoutBody } from '../ops/clients.js';

/** Settle's answer to one command (`CheckoutCommandResult`). */
export interface CheckoutCommandResult {
  event_id: string;
  /** Epoch milliseconds. */
  occurred_at: number;
  correlation_id: string;
  causation_id: string;
  command: 'RegisterCheckout' | 'CompleteCheckout' | 'VerifyCheckout';
  reference: string;
  outcome: 'accepted' | 'duplicate' | 'refused' | 'verified';
  state: string | null;
  entitlement_status: string | null;
  problem: { status: number; code: string; title: string; detail: string | null } | null;
}

/** A command as sent, and the wait for its answer. */
export interface SentCommand {
  command: CheckoutCommandResult['command'];
  /** The command's `event_id`: its result's `causation_id`. */
  eventId: string;
  reference: string;
  /**
   * Waits for the command's answer.
   *
   * @param options.timeoutMs - milliseconds (default 30,000).
   * @throws ResultTimeoutError when none came in time.
   */
  result(options?: { timeoutMs?: number; final?: boolean }): Promise<CheckoutCommandResult>;
}

/** A connected producer (`connectCheckoutProducer`). */
export interface CheckoutProducer {
  register(body: CheckoutBody, options?: { correlationId?: string }): Promise<SentCommand>;
  complete(reference: string, options?: { correlationId?: string }): Promise<SentCommand>;
  close(): Promise<void>;
}

interface ProducerModule {
  connectCheckoutProducer(options: { brokers: string[]; registryUrl: string; topicPrefix?: string; clientId: string }): Promise<CheckoutProducer>;
  ResultTimeoutError: new (...args: never[]) => Error;
}

/** Where the library is, from this file's place in dist/ (dist/scripts/demo). */
const LIBRARY = new URL('../../../examples/checkout-producer/src/producer.js', import.meta.url);

/**
 * Imports the example producer and connects it (its results consumer joined, its command schemas
 * looked up in the registry).
 *
 * @throws Error when its dependencies are not installed (`scripts/local/stack.sh checkout-producer`),
 *   or as `connectCheckoutProducer` throws (Kafka or the registry unreachable, a subject missing).
 */
export async function connectExampleProducer(options: {
  brokers: string[];
  registryUrl: string;
  topicPrefix?: string;
  clientId: string;
}): Promise<{ producer: CheckoutProducer; isTimeout: (error: unknown) => boolean }> {
  const installed = new URL('../node_modules/kafkajs/package.json', LIBRARY);
  if (!existsSync(fileURLToPath(installed))) {
    throw new Error(`examples/checkout-producer has no dependencies installed: run scripts/local/stack.sh checkout-producer`);
  }
  const library = (await import(LIBRARY.href)) as ProducerModule;
  const producer = await library.connectCheckoutProducer(options);
  return { producer, isTimeout: (error) => error instanceof library.ResultTimeoutError };
}
