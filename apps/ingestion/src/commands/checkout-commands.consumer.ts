import { Controller, type INestApplication } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { IngestionConfig } from '@settle/config';
import { consumerProbe, type BatchItem, type ConsumerLoop, type MessagingMetrics } from '@settle/messaging';
import type { HealthProbe } from '@settle/platform';
import { ConsumeBatches, KafkaBatchTransport, type BatchLoopHost } from '@settle/runtime';
import { CheckoutCommands } from './checkout-commands.service.js';

/**
 * Ingestion's consumer loop of `settle.checkout-commands.v1`, in its own consumer group
 * (`<prefix>-ingestion`), on the same Kafka batch transport as the workers' loops: each fetched
 * batch (one partition's commands, in offset order) to {@link CheckoutCommands}, one transaction
 * per batch, offsets committed after it.
 */
@Controller()
export class CheckoutCommandsConsumer {
  constructor(private readonly commands: CheckoutCommands) {}

  /** @returns the records to dead-letter (another record type on the topic). */
  @ConsumeBatches('checkout-commands', { topics: ['checkoutCommands'] })
  handle(batch: readonly BatchItem[]): ReturnType<CheckoutCommands['handleBatch']> {
    return this.commands.handleBatch(batch);
  }
}

/** What ingestion's boot (or a test) hands the transport: its Kafka connections and where its health is kept. */
export interface CommandLoopParts {
  context: BatchLoopHost['context'] & { config: IngestionConfig };
  messagingMetrics: MessagingMetrics;
  /** Where the loop's membership probe goes (ingestion's readiness list). */
  probes: HealthProbe[];
  /** The shutdown progress of the app's runtime. */
  noteStep(step: string): void;
}

/**
 * Starts ingestion's consumer loop on a built (not yet listening) app: the Kafka batch
 * transport as a connected microservice of the HTTP app, so the loop's handler runs in the app's
 * container (its exception filter passes batch errors to the loop), and `app.close()` stops the
 * loop (Nest's dispose step) before the relay, the producer and the pool stop. The loop's
 * membership joins readiness as `degraded` when failing: the HTTP API stays ready while Kafka is
 * away, its outbox holding what it accepts.
 *
 * @returns the running loops.
 * @throws kafkajs's errors when the loop cannot connect or subscribe.
 */
export async function startCheckoutCommandLoop(app: INestApplication, parts: CommandLoopParts): Promise<readonly ConsumerLoop[]> {
  const loops: ConsumerLoop[] = [];
  const host: BatchLoopHost = {
    context: parts.context,
    messagingMetrics: parts.messagingMetrics,
    loops,
    addLoop: (loop) => {
      loops.push(loop);
      parts.probes.push({ ...consumerProbe(loop), whenFailing: 'degraded' });
    },
    running: () => parts.context.logger.info({ groups: loops.map((l) => l.groupId) }, 'checkout commands consumer running'),
    noteStep: (step) => parts.noteStep(step),
  };
  const transport = new KafkaBatchTransport();
  app.connectMicroservice({ strategy: transport }, { inheritAppConfig: true });
  transport.attach(host, app.get(ModuleRef));
  await app.startAllMicroservices();
  return loops;
}
