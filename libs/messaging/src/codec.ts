import { readFileSync } from 'node:fs';
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { SettleError, type ErrorKind } from '@settle/domain';
import { EVENT_TYPES, type ContractMap, type EventType, type TypedEvent } from './contracts.js';
import { HEADERS, headerText } from './headers.js';
import { topicFor, type Topics } from './topics.js';

/** Namespace of the v1 Avro records. */
const NAMESPACE = 'dev.settle.events.v1';

/** Reads the Avro schema of an event type from `libs/messaging/schemas/<Type>.v1.avsc`. */
export function loadAvroSchema(type: EventType): string {
  return readFileSync(new URL(`../schemas/${type}.v1.avsc`, import.meta.url), 'utf8');
}

/**
 * A message could not be decoded (`MESSAGE.UNKNOWN_TYPE`, `MESSAGE.UNDECODABLE`): kind
 * `invalid`, a dead-letter case, never a retry.
 */
export class DecodeError extends SettleError {
  readonly kind: ErrorKind = 'invalid';

  /**
   * @param code - stable code, `MESSAGE.REASON`.
   * @param message - what is wrong with the bytes; never their content.
   */
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DecodeError';
  }
}

/**
 * Avro encoding through the schema registry (`@kafkajs/confluent-schema-registry`, Confluent
 * wire format: magic byte, 4-byte schema id, Avro body). Subjects follow the topic-record
 * strategy, `<topic>-<namespace>.<Record>`, so one topic carries several record types; every
 * subject is registered with BACKWARD compatibility.
 */
export class AvroCodec {
  private readonly ids = new Map<EventType, number>();

  constructor(
    private readonly registry: SchemaRegistry,
    private readonly topics: Topics,
  ) {}

  /** Creates a codec for the registry at `url`. */
  static connect(url: string, topics: Topics): AvroCodec {
    return new AvroCodec(new SchemaRegistry({ host: url, clientId: 'settle' }), topics);
  }

  /**
   * Registers (or finds) every schema this codec may encode. Idempotent: registering the
   * same schema again answers the same id.
   *
   * @throws when the registry is unreachable or refuses a schema as incompatible.
   */
  async registerAll(types: readonly EventType[] = EVENT_TYPES): Promise<void> {
    for (const type of types) {
      const subject = `${topicFor(this.topics, type)}-${NAMESPACE}.${type}`;
      const { id } = await this.registry.register({ type: SchemaType.AVRO, schema: loadAvroSchema(type) }, { subject, compatibility: COMPATIBILITY.BACKWARD });
      this.ids.set(type, id);
    }
  }

  /**
   * Encodes a payload; the payload is validated against the schema first.
   *
   * @throws when the type was not registered, or the payload does not match the schema.
   */
  async encode<K extends EventType>(type: K, payload: ContractMap[K]): Promise<Buffer> {
    const id = this.ids.get(type);
    if (id === undefined) throw new Error(`Schema for ${type} is not registered with this codec`);
    return this.registry.encode(id, payload);
  }

  /**
   * Checks a payload against its registered schema without encoding it, so a bad payload
   * fails the business transaction that produced it instead of blocking an outbox later.
   *
   * @throws Error naming the invalid fields.
   */
  async assertValid<K extends EventType>(type: K, payload: ContractMap[K]): Promise<void> {
    const id = this.ids.get(type);
    if (id === undefined) throw new Error(`Schema for ${type} is not registered with this codec`);
    const schema = (await this.registry.getSchema(id)) as { isValid?: (value: unknown, opts?: unknown) => boolean };
    const invalid: string[] = [];
    if (schema.isValid && !schema.isValid(payload, { errorHook: (path: string[]) => invalid.push(path.join('.')) })) {
      throw new Error(`${type} payload does not match its schema at: ${invalid.join(', ') || '(root)'}`);
    }
  }

  /**
   * Decodes a Kafka message value, using the `settle-event-type` header for the type.
   *
   * @throws DecodeError `MESSAGE.UNKNOWN_TYPE` or `MESSAGE.UNDECODABLE`.
   */
  async decode(value: Buffer | null, headers: Record<string, unknown> | undefined): Promise<TypedEvent> {
    const type = headerText(headers, HEADERS.eventType);
    if (!type || !(EVENT_TYPES as readonly string[]).includes(type)) {
      throw new DecodeError('MESSAGE.UNKNOWN_TYPE', `Unknown or missing ${HEADERS.eventType} header: ${type ?? '(none)'}`);
    }
    if (!value || value.length < 5) throw new DecodeError('MESSAGE.UNDECODABLE', 'Empty or truncated message value');
    try {
      const payload: unknown = await this.registry.decode(value);
      return { type, payload } as TypedEvent;
    } catch (error) {
      throw new DecodeError('MESSAGE.UNDECODABLE', `Avro decoding failed: ${(error as Error).message}`);
    }
  }
}
