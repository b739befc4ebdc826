import avro, { type Schema } from 'avsc';

/**
 * Compatibility levels of a schema registry subject (Confluent's names, which Apicurio's
 * ccompat API uses too).
 */
export type CompatibilityLevel = 'NONE' | 'BACKWARD' | 'BACKWARD_TRANSITIVE' | 'FORWARD' | 'FORWARD_TRANSITIVE' | 'FULL' | 'FULL_TRANSITIVE';

/**
 * The levels that keep Settle's rule, "a consumer reads every record of the version before
 * its own" (docs/operations.md, "Schema evolution"): BACKWARD itself, or a stricter level an
 * operator chose. Any other level of a subject Settle produces to is set to BACKWARD at boot.
 */
export const BACKWARD_OR_STRICTER: ReadonlySet<CompatibilityLevel> = new Set(['BACKWARD', 'BACKWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE']);

/**
 * Why records written with the `previous` schema cannot be read with the `current` one (Avro
 * schema resolution, as avsc implements the specification: a field added without a default, a
 * type changed to one the old type does not promote to, a renamed record), or `null` when they
 * can: BACKWARD compatibility of `current` against `previous`, checked without a registry.
 *
 * @param previous - the writer's schema, Avro JSON text.
 * @param current - the reader's schema, Avro JSON text.
 * @throws SyntaxError or avsc's Error when either text is not a valid Avro schema.
 */
export function backwardIncompatibility(previous: string, current: string): string | null {
  const reader = avro.Type.forSchema(JSON.parse(current) as Schema);
  const writer = avro.Type.forSchema(JSON.parse(previous) as Schema);
  try {
    reader.createResolver(writer);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Reads and sets a subject's compatibility level in the schema registry (its `/config/<subject>` resource). */
export interface SubjectCompatibility {
  /** The subject's level, `null` when the registry has none for it (nor a subject of that name). */
  get(subject: string): Promise<CompatibilityLevel | null>;
  /** Sets the subject's level (a subject not yet registered may be given one). */
  set(subject: string, level: CompatibilityLevel): Promise<void>;
}

/** A registry answer other than 2xx: its status, for the retry decisions (`withRegistryRetries`). */
export class SchemaRegistryHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SchemaRegistryHttpError';
  }
}

const REGISTRY_JSON = 'application/vnd.schemaregistry.v1+json';

/**
 * {@link SubjectCompatibility} over the Confluent-compatible HTTP API at `url` (`GET` and `PUT
 * /config/<subject>`). A registry without a level of the subject's own may answer 404 (Confluent)
 * or its global level (Apicurio): both are read as they come, so an unset subject reads `null`
 * or the global level.
 *
 * @throws SchemaRegistryHttpError (from its methods) for any other answer than 2xx or 404 on a read.
 */
export function httpSubjectCompatibility(url: string, options: { timeoutMs?: number } = {}): SubjectCompatibility {
  const base = url.replace(/\/+$/, '');
  const call = async (method: 'GET' | 'PUT', subject: string, body?: unknown): Promise<Response> =>
    fetch(`${base}/config/${encodeURIComponent(subject)}`, {
      method,
      headers: { accept: REGISTRY_JSON, ...(body ? { 'content-type': REGISTRY_JSON } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  return {
    async get(subject) {
      const answer = await call('GET', subject);
      if (answer.status === 404) return null;
      if (!answer.ok) throw new SchemaRegistryHttpError(answer.status, `schema registry answered ${answer.status} reading ${subject}'s compatibility`);
      const config = (await answer.json()) as { compatibilityLevel?: CompatibilityLevel; compatibility?: CompatibilityLevel };
      return config.compatibilityLevel ?? config.compatibility ?? null;
    },
    async set(subject, level) {
      const answer = await call('PUT', subject, { compatibility: level });
      if (!answer.ok)
        throw new SchemaRegistryHttpError(answer.status, `schema registry answered ${answer.status} setting ${subject}'s compatibility to ${level}`);
    },
  };
}
