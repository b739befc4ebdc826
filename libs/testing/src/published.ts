import { randomBytes } from 'node:crypto';
import { AvroCodec, createKafka, HEADERS, headerText, topicNames, type EventType, type Topics } from '@settle/messaging';
import { createLogger, type Pool } from '@settle/platform';
import { waitUntil } from '../../../scripts/ops/clients.js';

/** One message an app published, or holds in its outbox waiting to be published. */
export interface PublishedMessage {
  /** Where it is: a topic name, or `outbox:<schema>` while it waits there. */
  source: string;
  key: string | null;
  type: EventType;
  payload: { event_id: string; reference?: string } & Record<string, unknown>;
}

/**
 * Every record on the given topics of a stack right now (up to each partition's high watermark
 * when called), decoded with the schema registry, in a consumer group of its own.
 *
 * @throws when they cannot be read within 30 s.
 */
export async function readTopics(brokers: string[], registryUrl: string, topicPrefix: string, which: ReadonlyArray<keyof Topics>): Promise<PublishedMessage[]> {
  const topics = topicNames(topicPrefix);
  const names = which.map((k) => topics[k]);
  const kafka = createKafka('settle-test-reader', brokers, createLogger('settle-test-reader', 'fatal'));
  const codec = AvroCodec.connect(registryUrl, topics);
  const admin = kafka.admin();
  await admin.connect();
  let total = 0;
  try {
    for (const name of names) total += (await admin.fetchTopicOffsets(name)).reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  } finally {
    await admin.disconnect();
  }
  const read: PublishedMessage[] = [];
  if (total === 0) return read;
  let seen = 0;
  // A short fetch wait: disconnecting waits for the fetch in flight, by default a 5 s long poll
  // once the topics are read, which every call paid (5 s per chaos scenario).
  const consumer = kafka.consumer({ groupId: `settle-test-reader-${randomBytes(6).toString('hex')}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: names, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        seen += 1;
        if (!headerText(message.headers, HEADERS.eventType)) return;
        const event = await codec.decode(message.value, message.headers);
        read.push({
          source: topic,
          key: message.key?.toString('utf8') ?? null,
          type: event.type,
          payload: event.payload as unknown as PublishedMessage['payload'],
        });
      },
    });
    await waitUntil('every record on the topics to be read', 30_000, async () => (seen >= total ? true : undefined));
  } finally {
    await consumer.disconnect();
  }
  return read;
}

/**
 * What an app has published on a topic, as far as anyone can tell at this instant: the records
 * on the topic plus the rows still waiting in the app's outbox for that topic (a relay deletes a
 * row once Kafka acknowledged it, so a message is in one place or, briefly, in both), one per
 * event id.
 *
 * @param outboxSchema - the publishing app's outbox schema (`ingestion`, `verifier`, `ledger`, ...).
 */
export async function publishedMessages(
  stack: { db: Pool; topicPrefix: string },
  infra: { kafkaBrokers: string[]; registryUrl: string },
  outboxSchema: string,
  topic: keyof Topics,
): Promise<PublishedMessage[]> {
  const name = topicNames(stack.topicPrefix)[topic];
  const { rows } = await stack.db.query<{ message_key: string; event_type: EventType; payload: PublishedMessage['payload'] }>(
    `SELECT message_key, event_type, payload FROM ${outboxSchema}.outbox WHERE topic = $1 ORDER BY id`,
    [name],
  );
  const onTopic = await readTopics(infra.kafkaBrokers, infra.registryUrl, stack.topicPrefix, [topic]);
  const byId = new Map<string, PublishedMessage>();
  for (const m of onTopic) byId.set(m.payload.event_id, m);
  for (const r of rows) {
    if (!byId.has(r.payload.event_id))
      byId.set(r.payload.event_id, { source: `outbox:${outboxSchema}`, key: r.message_key, type: r.event_type, payload: r.payload });
  }
  return [...byId.values()];
}
