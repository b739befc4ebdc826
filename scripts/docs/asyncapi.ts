/**
 * The AsyncAPI 3.0 document of Settle's Kafka topics (`docs/api/asyncapi.yaml`), built from the
 * code's own topic list (`topicNames`, `topicFor`, `DEFAULT_PARTITIONS`), header names
 * (`HEADERS`) and Avro schemas (`libs/messaging/schemas/*.avsc`, embedded as they are), so the
 * document cannot drift from what the apps publish: `npm run asyncapi:generate` rewrites it,
 * and `test/asyncapi.unit.spec.ts` fails when the committed file is not what this builds.
 *
 * Who publishes and who consumes is declared in {@link APP_TOPICS}; the same test checks that
 * table against each app's `produces` and consumer topics and the console's list of consumer
 * groups.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { DEFAULT_PARTITIONS, EVENT_TYPES, HEADERS, topicFor, topicNames, type EventType, type Topics } from '@settle/messaging';

/** The default topic prefix (`SETTLE_TOPIC_PREFIX`), under which the document names the topics. */
export const DOCUMENT_PREFIX = 'settle';
/** Where the document lives. */
export const ASYNCAPI_FILE = fileURLToPath(new URL('../../docs/api/asyncapi.yaml', import.meta.url));
const SCHEMAS_DIR = fileURLToPath(new URL('../../libs/messaging/schemas/', import.meta.url));
const AVRO_FORMAT = 'application/vnd.apache.avro;version=1.9.0';
/** Version of the AsyncAPI Kafka bindings used. */
const KAFKA_BINDING = '0.5.0';

/** A topic, by its key in {@link Topics}. */
export type TopicKey = keyof Topics;

/** What one app publishes and consumes on Kafka. */
export interface AppTopics {
  /** Record types the app publishes (its `produces`), each on the topic `topicFor` gives. */
  readonly sends: readonly EventType[];
  /** Topics the app consumes, in its one consumer group `<prefix>-<app>` (libs/runtime). */
  readonly receives: readonly TopicKey[];
  /** Whether the app writes records it cannot process to the dead-letter topic (every consumer does). */
  readonly deadLetters: boolean;
}

/**
 * Every app's Kafka side. The console and the provider sandbox neither publish nor consume
 * (the console reads offsets with Kafka's admin API only).
 */
export const APP_TOPICS: Readonly<Record<string, AppTopics>> = {
  ingestion: {
    sends: [
      'CheckoutRegistered',
      'CheckoutCompleted',
      'ProviderWebhookReceived',
      'VerificationRequested',
      'UnmatchedPaymentCloseRequested',
      'ReconciliationRunRequested',
      'ReconciliationExceptionResolveRequested',
      'MismatchResolutionRequested',
      'CheckoutCommandResult',
    ],
    receives: ['checkoutCommands'],
    deadLetters: true,
  },
  verifier: {
    sends: [
      'ConsensusResult',
      'MoneyMovementsObserved',
      'UnmatchedPaymentObserved',
      'ReconciliationRunRecorded',
      'ReconciliationExceptionObserved',
      'VerificationRequested',
    ],
    receives: ['transactionEvents'],
    deadLetters: true,
  },
  'ledger-projector': {
    sends: ['SettlementRecorded', 'SettledByOverride', 'MoneyMovementRecorded', 'EntitlementGranted', 'EntitlementAccessChanged', 'LedgerCheckpointed'],
    receives: ['consensusResults'],
    deadLetters: true,
  },
  sweeper: { sends: ['VerificationRequested'], receives: ['transactionEvents', 'consensusResults'], deadLetters: true },
  dispatcher: { sends: ['DeliveryDeadLettered'], receives: ['entitlementEvents'], deadLetters: true },
};

/** The Kafka message key of each record type (the outbox's `key`, else the payload's `reference`). */
const MESSAGE_KEYS: Readonly<Record<EventType, { field: string; description: string }>> = {
  CheckoutRegistered: { field: 'reference', description: 'The transaction reference.' },
  CheckoutCompleted: { field: 'reference', description: 'The transaction reference.' },
  ProviderWebhookReceived: { field: 'reference', description: 'The transaction reference.' },
  VerificationRequested: { field: 'reference', description: 'The transaction reference.' },
  ConsensusResult: { field: 'reference', description: 'The transaction reference.' },
  SettlementRecorded: { field: 'reference', description: 'The transaction reference.' },
  EntitlementGranted: { field: 'user_id', description: "The user's id: all of one user's grants land on one partition, in order." },
  DeliveryDeadLettered: { field: 'endpoint_id', description: 'The customer endpoint id.' },
  UnmatchedPaymentObserved: { field: 'reference', description: "The payment's provider reference." },
  UnmatchedPaymentCloseRequested: { field: 'reference', description: "The payment's provider reference." },
  MismatchResolutionRequested: { field: 'reference', description: 'The transaction reference.' },
  SettledByOverride: { field: 'reference', description: 'The transaction reference.' },
  ReconciliationRunRequested: { field: 'reference', description: "The run's id: all of one run's records land on one partition, in order." },
  ReconciliationRunRecorded: { field: 'reference', description: "The run's id." },
  ReconciliationExceptionObserved: { field: 'reference', description: "The payment's provider reference." },
  ReconciliationExceptionResolveRequested: { field: 'reference', description: "The payment's provider reference." },
  MoneyMovementsObserved: { field: 'reference', description: 'The transaction reference.' },
  MoneyMovementRecorded: { field: 'reference', description: 'The transaction reference.' },
  EntitlementAccessChanged: { field: 'user_id', description: "The user's id: a revocation lands on the partition of the user's grants, after them." },
  RegisterCheckout: { field: 'reference', description: 'The transaction reference: all commands of one checkout land on one partition, in order.' },
  CompleteCheckout: { field: 'reference', description: 'The transaction reference.' },
  VerifyCheckout: { field: 'reference', description: 'The transaction reference.' },
  CheckoutCommandResult: { field: 'reference', description: "The command's reference, as sent." },
  LedgerCheckpointed: { field: 'origin', description: "The ledger's origin: compaction keeps the latest checkpoint of each ledger." },
};

const TOPIC_SUMMARIES: Readonly<Record<TopicKey, string>> = {
  transactionEvents:
    'Checkout registrations and completions, verified webhooks, verification requests, operators closing unmatched payments, reconciliation requests.',
  consensusResults:
    "The verifier's decisions: consensus results, what providers showed about settled payments' money, its answers about unmatched payments, reconciliation runs and exceptions.",
  settlements: 'Outcomes and money facts (refunds, reversals, disputes) committed to the ledger, for downstream subscribers (they de-duplicate by event_id).',
  entitlementEvents: 'Access granted by settled payments, and revoked or reinstated when their money moves, keyed by user, for delivery to customer endpoints.',
  deliveryDeadLetter: 'Entitlement events given up for a customer endpoint after every retry, keyed by endpoint.',
  deadLetter: 'Records no consumer could process: the original key, bytes and headers, with the error in dlq-* headers. Read by operators.',
  checkoutCommands:
    "Inbound: upstream checkout services' commands (register, complete, verify a checkout), keyed by reference, with the producer's name in the settle-producer header; the checkout API's Kafka twin. Producers write with the schemas Settle registered (never auto-registering); the broker's ACLs say who may write.",
  checkoutResults:
    "Settle's answer to each checkout command (accepted, duplicate, refused with the HTTP API's problem code, or a verification's outcome), keyed by reference; kept 7 days (retention.ms), whether read or not.",
  ledgerCheckpoints:
    'The ledger\'s signed checkpoints (size, Merkle root, global hash, time, Ed25519 signature), keyed by origin on a compacted topic (cleanup.policy=compact): the latest of each ledger stays. Auditors and customers keep the ones they read and check the ledger against them (docs/ledger.md, "Checkpoints").',
};

/** The record types published on a topic, in `EVENT_TYPES` order. */
function recordsOf(topics: Topics, key: TopicKey): EventType[] {
  return EVENT_TYPES.filter((type) => topicFor(topics, type) === topics[key]);
}

function topicKeyOf(topics: Topics, type: EventType): TopicKey {
  const address = topicFor(topics, type);
  const key = (Object.keys(topics) as TopicKey[]).find((k) => topics[k] === address);
  if (!key) throw new Error(`no topic key for ${type}`);
  return key;
}

/** Reads a record's Avro schema file, `<Record>.v1.avsc`. */
function avroSchema(type: EventType): Record<string, unknown> {
  const files = readdirSync(SCHEMAS_DIR);
  const file = `${type}.v1.avsc`;
  if (!files.includes(file)) throw new Error(`no schema file ${file}`);
  return JSON.parse(readFileSync(`${SCHEMAS_DIR}${file}`, 'utf8')) as Record<string, unknown>;
}

const ref = (path: string) => ({ $ref: `#/${path}` });

/**
 * Builds the AsyncAPI 3.0 document as YAML text.
 *
 * @param version - the document's `info.version` (Settle's package version).
 * @throws Error when a record type has no schema file.
 */
export function asyncApiDocument(version: string): string {
  const topics = topicNames(DOCUMENT_PREFIX);
  const keys = Object.keys(topics) as TopicKey[];

  const channels = Object.fromEntries(
    keys.map((key) => {
      const records = recordsOf(topics, key);
      const messages =
        key === 'deadLetter'
          ? { DeadLetterRecord: ref('components/messages/DeadLetterRecord') }
          : Object.fromEntries(records.map((r) => [r, ref(`components/messages/${r}`)]));
      return [
        key,
        {
          address: topics[key],
          title: topics[key],
          summary: TOPIC_SUMMARIES[key],
          messages,
          bindings: { kafka: { topic: topics[key], partitions: DEFAULT_PARTITIONS, bindingVersion: KAFKA_BINDING } },
        },
      ];
    }),
  );

  const operations: Record<string, unknown> = {};
  for (const [app, side] of Object.entries(APP_TOPICS)) {
    const sentOn = new Map<TopicKey, EventType[]>();
    for (const type of side.sends) sentOn.set(topicKeyOf(topics, type), [...(sentOn.get(topicKeyOf(topics, type)) ?? []), type]);
    for (const [key, types] of sentOn) {
      operations[`${app}.send.${key}`] = {
        action: 'send',
        channel: ref(`channels/${key}`),
        summary: `${app} publishes ${types.join(', ')} through its transactional outbox.`,
        messages: types.map((t) => ref(`channels/${key}/messages/${t}`)),
        bindings: { kafka: { clientId: { type: 'string', enum: [`settle-${app}`] }, bindingVersion: KAFKA_BINDING } },
      };
    }
    for (const key of side.receives) {
      operations[`${app}.receive.${key}`] = {
        action: 'receive',
        channel: ref(`channels/${key}`),
        summary: `${app} consumes ${topics[key]} in consumer group ${DOCUMENT_PREFIX}-${app}.`,
        messages: recordsOf(topics, key).map((t) => ref(`channels/${key}/messages/${t}`)),
        bindings: {
          kafka: {
            groupId: { type: 'string', enum: [`${DOCUMENT_PREFIX}-${app}`] },
            clientId: { type: 'string', enum: [`settle-${app}`] },
            bindingVersion: KAFKA_BINDING,
          },
        },
      };
    }
    if (side.deadLetters) {
      operations[`${app}.send.deadLetter`] = {
        action: 'send',
        channel: ref('channels/deadLetter'),
        summary: `${app} writes a record it can never process (undecodable, unknown type or value, a broken rule) here before moving its offset on.`,
        messages: [ref('channels/deadLetter/messages/DeadLetterRecord')],
        bindings: { kafka: { clientId: { type: 'string', enum: [`settle-${app}`] }, bindingVersion: KAFKA_BINDING } },
      };
    }
  }

  // Upstream checkout services, outside Settle: they write the commands and read the results.
  operations['upstream.send.checkoutCommands'] = {
    action: 'send',
    channel: ref('channels/checkoutCommands'),
    summary: `An upstream checkout service publishes its commands, with its name in the ${HEADERS.producer} header; the broker's ACLs say who may write (docs/api.md, "Two ways in").`,
    messages: recordsOf(topics, 'checkoutCommands').map((t) => ref(`channels/checkoutCommands/messages/${t}`)),
  };
  operations['upstream.receive.checkoutResults'] = {
    action: 'receive',
    channel: ref('channels/checkoutResults'),
    summary:
      'An upstream checkout service reads the answers to its commands, in a consumer group of its own, matching them by correlation_id and causation_id.',
    messages: recordsOf(topics, 'checkoutResults').map((t) => ref(`channels/checkoutResults/messages/${t}`)),
  };

  const text = (description: string) => ({ type: 'string', description });
  // W3C trace context (docs/observability.md, "Traces"): only while tracing is on, so never required.
  const traceHeaders = {
    [HEADERS.traceparent]: {
      type: 'string',
      pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
      description:
        'W3C trace context (www.w3.org/TR/trace-context/): the producer span of the record, in the trace of the checkout’s request chain. Set only while the producing app traces (OTEL_TRACES_EXPORTER).',
    },
    [HEADERS.tracestate]: text('W3C trace state, vendors’ trace data carried along with traceparent; set only when the trace has some.'),
  };
  const messages: Record<string, unknown> = {};
  for (const type of EVENT_TYPES) {
    const schema = avroSchema(type);
    const key = MESSAGE_KEYS[type];
    const command = topicFor(topics, type) === topics.checkoutCommands;
    messages[type] = {
      name: type,
      title: type,
      summary: typeof schema.doc === 'string' ? schema.doc : undefined,
      contentType: 'application/vnd.apache.avro+binary',
      headers: {
        type: 'object',
        required: command ? [HEADERS.eventType, HEADERS.producer] : [HEADERS.eventType, HEADERS.correlationId, HEADERS.causationId],
        properties: command
          ? {
              [HEADERS.eventType]: { type: 'string', const: type, description: 'The record name; Settle picks the schema by it.' },
              [HEADERS.producer]: text(
                'Who sent the command: the producer’s client id or principal; recorded with its effects. A command without it is refused (COMMAND.PRODUCER_UNNAMED).',
              ),
              ...traceHeaders,
            }
          : {
              [HEADERS.eventType]: { type: 'string', const: type, description: 'The record name; consumers pick the schema by it.' },
              [HEADERS.correlationId]: text("Id shared by every event of one checkout's flow (the payload's correlation_id)."),
              [HEADERS.causationId]: text('Id of the event that caused this one; the event_id itself for a flow\u2019s first event.'),
              ...traceHeaders,
            },
      },
      payload: { schemaFormat: AVRO_FORMAT, schema },
      bindings: {
        kafka: {
          key: { type: 'string', description: `${key.description} (the payload's ${key.field}).` },
          schemaIdLocation: 'payload',
          schemaIdPayloadEncoding: 'confluent',
          schemaLookupStrategy: 'TopicRecordNameStrategy',
          bindingVersion: KAFKA_BINDING,
        },
      },
    };
  }
  messages.DeadLetterRecord = {
    name: 'DeadLetterRecord',
    title: 'Dead-letter record',
    summary: 'A record a consumer could not process: the original key, value and headers, and why.',
    contentType: 'application/octet-stream',
    headers: {
      type: 'object',
      required: [
        HEADERS.dlqErrorCode,
        HEADERS.dlqErrorMessage,
        HEADERS.dlqSourceTopic,
        HEADERS.dlqSourcePartition,
        HEADERS.dlqSourceOffset,
        HEADERS.dlqConsumerGroup,
      ],
      properties: {
        [HEADERS.dlqErrorCode]: text(
          'The error code (`MESSAGE.UNDECODABLE`, `MESSAGE.UNKNOWN_TYPE`, `MESSAGE.INVALID_VALUE`, a rule\u2019s code; docs/errors.md).',
        ),
        [HEADERS.dlqErrorMessage]: text('The error message, at most 1,000 characters.'),
        [HEADERS.dlqSourceTopic]: text('Topic the record was read from.'),
        [HEADERS.dlqSourcePartition]: text('Its partition, in decimal.'),
        [HEADERS.dlqSourceOffset]: text('Its offset, in decimal.'),
        [HEADERS.dlqConsumerGroup]: text('The consumer group that gave it up.'),
        [HEADERS.eventType]: text('The original header, when the record had one.'),
        [HEADERS.correlationId]: text('The original header, when the record had one.'),
        [HEADERS.causationId]: text('The original header, when the record had one.'),
        [HEADERS.traceparent]: text('W3C trace context of the dead-letter write (a child of the failed message\u2019s processing span), while tracing is on.'),
        [HEADERS.tracestate]: text('W3C trace state carried along with traceparent, when the trace has some.'),
      },
    },
    payload: { type: 'string', format: 'binary', description: 'The original message value, byte for byte.' },
    bindings: { kafka: { key: { type: 'string', description: 'The original message key.' }, bindingVersion: KAFKA_BINDING } },
  };

  const document = {
    asyncapi: '3.0.0',
    info: {
      title: 'Settle Kafka topics',
      version,
      description: [
        'The topics Settle\u2019s apps publish and consume, their records (Avro, `libs/messaging/schemas`, registered in the schema registry under the topic-record subject strategy with BACKWARD compatibility) and the headers the apps set.',
        '',
        `Topic names carry a prefix, \`SETTLE_TOPIC_PREFIX\` (default \`${DOCUMENT_PREFIX}\`, shown here); consumer groups are \`<prefix>-<app>\` and Kafka client ids \`settle-<app>\`.`,
        `Every topic has ${DEFAULT_PARTITIONS} partitions when the apps create it; a worker's replicas beyond the partitions of its topics sit idle.`,
        "Values are in the Confluent wire format (magic byte, 4-byte schema id, Avro body); the id is the registry's content id (Apicurio Registry's contentId, what its Confluent-compatible API at /apis/ccompat/v7 answers and resolves), not its globalId. Producers are idempotent, acks all, with murmur2 partitioning: one key always maps to one partition. The settlements topic carries every outcome the ledger records (a reference can have several records, each with its own event_id, and a relay may publish one twice): subscribers de-duplicate by event_id and filter on outcome.",
        '',
        'Generated from the code by `npm run asyncapi:generate`; do not edit by hand.',
      ].join('\n'),
    },
    defaultContentType: 'application/vnd.apache.avro+binary',
    servers: {
      kafka: { host: 'kafka:9092', protocol: 'kafka', description: 'The brokers of `KAFKA_BROKERS`.' },
    },
    channels,
    operations,
    components: { messages },
  };
  return `# Generated by \`npm run asyncapi:generate\` from libs/messaging (topics, headers, schemas) and scripts/docs/asyncapi.ts; do not edit.\n${stringify(document, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}
