import { readFileSync } from 'node:fs';
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro, { type Resolver, type Schema, type Type } from 'avsc';
import { validate as isUuid } from 'uuid';
import { SettleError, type ErrorKind } from '@settle/domain';
import { EVENT_TYPES, findInvalidLiteral, type ContractMap, type EventType, type TypedEvent } from './contracts.js';
import { HEADERS, headerText } from './headers.js';
import { BACKWARD_OR_STRICTER, httpSubjectCompatibility, type CompatibilityLevel, type SubjectCompatibility } from './schema-evolution.js';
import { topicFor, type Topics } from './topics.js';

/** Namespace of the v1 Avro records. */
const NAMESPACE = 'dev.settle.events.v1';

/** Reads the Avro schema of an event type from `libs/messaging/schemas/<Type>.v1.avsc`. */
export function loadAvroSchema(type: EventType): string {
  return readFileSync(new URL(`../schemas/${type}.v1.avsc`, import.meta.url), 'utf8');
}

/**
 * The schema registry subject of a record type (the topic-record strategy:
 * `<topic>-dev.settle.events.v1.<Record>`), so one topic carries several record types and each
 * evolves on its own.
 */
export function subjectFor(topics: Topics, type: EventType): string {
  return `${topicFor(topics, type)}-${NAMESPACE}.${type}`;
}

/**
 * The writer's schema of a message could not be fetched: the registry did not answer, or
 * answered anything but "not found" (`MESSAGE.REGISTRY_UNAVAILABLE`): kind `unavailable`, so the
 * consumer loop retries the message in place instead of dead-lettering it.
 */
export class SchemaRegistryUnavailableError extends SettleError {
  readonly code = 'MESSAGE.REGISTRY_UNAVAILABLE';
  readonly kind: ErrorKind = 'unavailable';

  /** @param schemaId - the id in the message's wire header. */
  constructor(
    readonly schemaId: number,
    cause: unknown,
  ) {
    super(`The schema registry could not give schema ${schemaId}: ${(cause as Error | undefined)?.message ?? String(cause)}`, { cause });
    this.name = 'SchemaRegistryUnavailableError';
  }
}

/**
 * A message could not be decoded (`MESSAGE.UNKNOWN_TYPE`, `MESSAGE.UNDECODABLE`, `MESSAGE.UNKNOWN_SCHEMA`,
 * `MESSAGE.INCOMPATIBLE_SCHEMA`): kind
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
 * subject this codec registers is held to BACKWARD compatibility (or a stricter level an
 * operator set), and every record is read through this build's own schema of its type, resolved
 * from the writer's (docs/operations.md, "Schema evolution").
 */
export class AvroCodec {
  private readonly ids = new Map<EventType, number>();
  /** This build's schema of each type, parsed once: the reader's schema of every decode. */
  private readonly readers = new Map<EventType, Type>();
  /** Per `<type>:<writer schema id>`: the resolver from that writer's schema to the reader's, `null` when they are the same. */
  private readonly resolvers = new Map<string, Resolver | null>();

  /**
   * @param subjects - reads and sets the subjects' compatibility level when registering; without
   *   it (a codec that only decodes) `registerAll` leaves the levels as they are.
   */
  constructor(
    private readonly registry: SchemaRegistry,
    private readonly topics: Topics,
    private readonly subjects?: SubjectCompatibility,
  ) {}

  /** Creates a codec for the registry at `url` (its Confluent-compatible API). */
  static connect(url: string, topics: Topics): AvroCodec {
    return new AvroCodec(new SchemaRegistry({ host: url, clientId: 'settle' }), topics, httpSubjectCompatibility(url));
  }

  /**
   * Registers (or finds) every schema this codec may encode, each under its subject held to
   * BACKWARD compatibility first: a subject with another level (none of its own, NONE, FORWARD)
   * is set to BACKWARD before the schema is registered, so the registry refuses a schema that
   * cannot read the subject's latest version; a stricter level (BACKWARD_TRANSITIVE, FULL,
   * FULL_TRANSITIVE) is kept. Idempotent: registering the same schema again answers the same id.
   *
   * @throws when the registry is unreachable, or refuses a schema as incompatible (HTTP 409).
   */
  async registerAll(types: readonly EventType[] = EVENT_TYPES): Promise<void> {
    for (const type of types) {
      const subject = subjectFor(this.topics, type);
      const compatibility = await this.holdBackward(subject);
      const { id } = await this.registry.register(
        { type: SchemaType.AVRO, schema: loadAvroSchema(type) },
        // The level is already set: the client only checks it (its own setting comes after a first registration).
        { subject, compatibility: compatibility as COMPATIBILITY, updateConfig: false },
      );
      this.ids.set(type, id);
    }
  }

  /** Sets a subject's level to BACKWARD unless it is that or stricter; returns the level it has then. */
  private async holdBackward(subject: string): Promise<CompatibilityLevel> {
    if (!this.subjects) return 'BACKWARD';
    const level = await this.subjects.get(subject);
    if (level !== null && BACKWARD_OR_STRICTER.has(level)) return level;
    await this.subjects.set(subject, 'BACKWARD');
    return 'BACKWARD';
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
   * Decodes a Kafka message value, using the `settle-event-type` header for the type. The
   * record is read with this build's schema of the type, resolved from the writer's schema (the
   * id in its wire header): a record of an earlier version gets the defaults of the fields it
   * lacks (a `null`, never `undefined`), one of a later version loses the fields this build does
   * not know (Avro schema resolution). Avro checks the shape; the closed-list string fields (states, verdicts, triggers, providers:
   * `CONTRACT_LITERALS`) are checked here, so a value this build does not know is dead-lettered
   * instead of reaching a handler as a wrongly typed string.
   *
   * @throws DecodeError `MESSAGE.UNKNOWN_TYPE`, `MESSAGE.UNDECODABLE`, `MESSAGE.INCOMPATIBLE_SCHEMA` (this
   *   build's schema of the type cannot read the writer's), `MESSAGE.UNKNOWN_SCHEMA` (the
   *   registry answered that it has no such schema) or `MESSAGE.INVALID_VALUE`.
   * @throws SchemaRegistryUnavailableError when the writer's schema could not be fetched otherwise.
   */
  async decode(value: Buffer | null, headers: Record<string, unknown> | undefined): Promise<TypedEvent> {
    const type = headerText(headers, HEADERS.eventType);
    if (!isEventType(type)) {
      throw new DecodeError('MESSAGE.UNKNOWN_TYPE', `Unknown or missing ${HEADERS.eventType} header: ${type ?? '(none)'}`);
    }
    if (!value || value.length < 5) throw new DecodeError('MESSAGE.UNDECODABLE', 'Empty or truncated message value');
    if (value[0] !== 0) throw new DecodeError('MESSAGE.UNDECODABLE', 'Not in the Confluent wire format (magic byte)');
    const schemaId = value.readInt32BE(1);
    let writer: Type;
    try {
      // The writer's schema first (cached after the first fetch): a registry that cannot be
      // reached is a transient failure to retry, not a reason to dead-letter the record.
      writer = (await this.registry.getSchema(schemaId)) as unknown as Type;
    } catch (error) {
      if ((error as { status?: unknown }).status === 404) {
        throw new DecodeError('MESSAGE.UNKNOWN_SCHEMA', `The schema registry has no schema ${schemaId}`);
      }
      throw new SchemaRegistryUnavailableError(schemaId, error);
    }
    const reader = this.readerOf(type);
    const resolver = this.resolverOf(type, schemaId, reader, writer);
    let payload: unknown;
    try {
      // Read as this build reads the type: fields the writer's version lacks take their defaults.
      payload = resolver ? reader.fromBuffer(value.subarray(5), resolver) : reader.fromBuffer(value.subarray(5));
    } catch (error) {
      throw new DecodeError('MESSAGE.UNDECODABLE', `Avro decoding failed: ${(error as Error).message}`);
    }
    return typedEvent(type, payload);
  }

  /** This build's schema of `type`, parsed once (as the registry client parses schemas: no logical-type hooks). */
  private readerOf(type: EventType): Type {
    let reader = this.readers.get(type);
    if (!reader) {
      reader = avro.Type.forSchema(JSON.parse(loadAvroSchema(type)) as Schema);
      this.readers.set(type, reader);
    }
    return reader;
  }

  /**
   * The resolver from a writer's schema to this build's, made once per type and schema id;
   * `null` when the two are the same schema (the record is read directly).
   *
   * @throws DecodeError `MESSAGE.INCOMPATIBLE_SCHEMA` when this build cannot read that writer's
   *   records (a schema the registry should have refused, or a record type the header misnames).
   */
  private resolverOf(type: EventType, schemaId: number, reader: Type, writer: Type): Resolver | null {
    const key = `${type}:${schemaId}`;
    const known = this.resolvers.get(key);
    if (known !== undefined) return known;
    let resolver: Resolver | null;
    try {
      resolver = reader.equals(writer) ? null : reader.createResolver(writer);
    } catch (error) {
      throw new DecodeError(
        'MESSAGE.INCOMPATIBLE_SCHEMA',
        `This build's ${type} schema cannot read records written with schema ${schemaId}: ${(error as Error).message}`,
      );
    }
    this.resolvers.set(key, resolver);
    return resolver;
  }
}

/** Whether a header names a known record type. */
function isEventType(type: string | undefined): type is EventType {
  return type !== undefined && (EVENT_TYPES as readonly string[]).includes(type);
}

/** Whether an Avro-decoded payload of `type` holds known values in its closed-list fields. */
function hasKnownLiterals<K extends EventType>(type: K, payload: unknown): payload is ContractMap[K] {
  return findInvalidLiteral(type, payload) === null;
}

/**
 * The top-level fields of a record that hold an event id: its own `event_id` (the idempotency
 * key every consumer's inbox stores as a PostgreSQL `uuid`) and the `*_event_id` fields that
 * name another event. Every producer writes UUIDs there (random, or `deterministicId`'s UUIDv5).
 */
function eventIdFields(payload: unknown): Array<[string, unknown]> {
  if (typeof payload !== 'object' || payload === null) return [['event_id', undefined]];
  return Object.entries(payload).filter(([name]) => name === 'event_id' || name.endsWith('_event_id'));
}

/**
 * The decoded message as a {@link TypedEvent}: Avro decoded `payload` with the writer's schema
 * of `type` (its shape), every closed-list field holds a known value, and every event id is a
 * UUID. A record that breaks either rule is a poison message: handed to a consumer it would fail
 * the same way on every retry (an event id that is not a UUID fails the inbox's query), holding
 * its partition; refused here, it is dead-lettered and the partition moves on.
 *
 * @throws DecodeError `MESSAGE.INVALID_VALUE` naming the field (values are states, verdicts,
 *   triggers, provider names or ids, never secrets).
 */
export function typedEvent<K extends EventType>(type: K, payload: unknown): TypedEvent {
  if (!hasKnownLiterals(type, payload)) {
    const invalid = findInvalidLiteral(type, payload);
    throw new DecodeError(
      'MESSAGE.INVALID_VALUE',
      `${type}.${invalid?.path ?? '?'} holds a value this build does not know: ${JSON.stringify(invalid?.value)?.slice(0, 80)}`,
    );
  }
  for (const [name, value] of eventIdFields(payload)) {
    if (value !== null && (typeof value !== 'string' || !isUuid(value))) {
      throw new DecodeError('MESSAGE.INVALID_VALUE', `${type}.${name} is not a UUID: ${JSON.stringify(value)?.slice(0, 80)}`);
    }
  }
  const event: { type: K; payload: ContractMap[K] } = { type, payload };
  // TypeScript cannot correlate a generic K with the union member it names; the pair is checked above.
  return event as TypedEvent;
}
