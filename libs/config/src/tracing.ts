import { z } from 'zod';
import { ConfigError } from './load.js';
import { Secret } from './secret.js';

/** Unset, or set to an empty string (as `${VAR:-}` in a compose file does): both mean "not configured". */
const blankIsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** The exporters Settle's apps can send their spans to (`OTEL_TRACES_EXPORTER`). */
export const TRACES_EXPORTERS = ['none', 'otlp', 'console'] as const;

/** The OTLP transports supported (`OTEL_EXPORTER_OTLP_PROTOCOL`); `grpc` is not. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** The samplers of the OpenTelemetry specification's `OTEL_TRACES_SAMPLER`. */
export const TRACES_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;

/**
 * The tracing variables every app reads (docs/observability.md, "Traces"): the OpenTelemetry
 * SDK's standard environment variables (opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
 * and .../protocol/exporter/), the subset Settle honours. One fragment, listed in each app's
 * schemas (`scripts/config/env-examples.ts`) and parsed by {@link loadTracingConfig}.
 *
 * Unlike the specification, whose default exporter is `otlp`, unset means `none`: tracing is
 * off unless asked for, and no SDK starts.
 */
export const tracingEnv = z.object({
  OTEL_TRACES_EXPORTER: z.preprocess(blankIsUnset, z.enum(TRACES_EXPORTERS).default('none')).meta({
    description:
      'Where spans go: `otlp` (an OpenTelemetry collector, OTEL_EXPORTER_OTLP_*), `console` (standard output, multi-line, for debugging only) or `none`. Unset: `none`, tracing off (no SDK starts; the OpenTelemetry API stays a no-op and no trace context is written to Kafka headers or outboxes).',
  }),
  OTEL_SERVICE_NAME: z.preprocess(blankIsUnset, z.string().trim().min(1).optional()).meta({
    description: "The `service.name` of the app's spans; unset: the app's name (`ingestion`, `verifier`, ...).",
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(blankIsUnset, z.url({ error: 'OTEL_EXPORTER_OTLP_ENDPOINT must be a URL' }).optional()).meta({
    description: 'Base URL of the OTLP/HTTP collector; spans are posted to `<base>/v1/traces`. Unset: `http://localhost:4318`.',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .preprocess(blankIsUnset, z.url({ error: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be a URL' }).optional())
    .meta({ description: 'Full URL spans are posted to, used as it is; takes precedence over OTEL_EXPORTER_OTLP_ENDPOINT.' }),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess(blankIsUnset, z.enum(OTLP_PROTOCOLS).default('http/protobuf')).meta({
    description: 'OTLP encoding over HTTP: `http/protobuf` (the specification\u2019s default) or `http/json`. `grpc` is not supported.',
  }),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .preprocess(
      blankIsUnset,
      z
        .string()
        .refine((v) => parseHeaderList(v) !== null, 'OTEL_EXPORTER_OTLP_HEADERS must be a comma-separated list of key=value pairs')
        .transform((v) => new Secret(v))
        .optional(),
    )
    .meta({
      description: 'Headers sent with every export, `key=value` pairs separated by commas (values percent-encoded), such as a collector\u2019s API key.',
      secret: true,
    }),
  OTEL_TRACES_SAMPLER: z.preprocess(blankIsUnset, z.enum(TRACES_SAMPLERS).default('parentbased_always_on')).meta({
    description:
      'Which traces are recorded: the parent-based samplers follow the sampled flag of an incoming `traceparent` and sample new traces by the root sampler.',
  }),
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(blankIsUnset, z.coerce.number().min(0).max(1).default(1)).meta({
    description: 'The ratio of new traces the `traceidratio` samplers record, from 0 to 1.',
    unit: 'fraction (0.1 is 10 %)',
  }),
  OTEL_BSP_SCHEDULE_DELAY: z.preprocess(blankIsUnset, z.coerce.number().int().min(1).default(5_000)).meta({
    description: 'Longest a finished span waits before its batch is exported.',
    unit: 'milliseconds',
  }),
});

/** The sampler of an app's spans. */
export interface TracingSampler {
  kind: (typeof TRACES_SAMPLERS)[number];
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  ratio: number;
}

/**
 * An app's tracing configuration: `none` (off: no SDK starts), `console`, or `otlp` with the
 * URL spans are posted to and the headers of every export (a {@link Secret}: they may hold a
 * collector's key).
 */
export type TracingConfig =
  | { exporter: 'none' }
  | { exporter: 'console'; serviceName: string; sampler: TracingSampler; scheduleDelayMs: number }
  | {
      exporter: 'otlp';
      serviceName: string;
      sampler: TracingSampler;
      /** Milliseconds. */
      scheduleDelayMs: number;
      protocol: (typeof OTLP_PROTOCOLS)[number];
      /** The full URL spans are posted to. */
      url: string;
      headers: Secret | undefined;
    };

/**
 * Reads `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,key2=value2`, values percent-encoded, as the
 * OpenTelemetry specification's exporter section says).
 *
 * @returns the headers, or `null` when the text is not such a list.
 */
export function parseHeaderList(text: string): Record<string, string> | null {
  const headers: Record<string, string> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const at = part.indexOf('=');
    if (at <= 0) return null;
    const key = part.slice(0, at).trim();
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) return null;
    try {
      headers[key] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      return null;
    }
  }
  return headers;
}

/**
 * The tracing configuration of an app from the standard OpenTelemetry variables
 * ({@link tracingEnv}). The OTLP URL is `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended, else `http://localhost:4318/v1/traces`
 * (the specification's rules for OTLP/HTTP).
 *
 * @param app - the app's name, the default `service.name`.
 * @throws ConfigError naming each invalid variable, never its value.
 */
export function loadTracingConfig(app: string, env: NodeJS.ProcessEnv = process.env): TracingConfig {
  const result = tracingEnv.safeParse(env);
  if (!result.success) throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  const e = result.data;
  if (e.OTEL_TRACES_EXPORTER === 'none') return { exporter: 'none' };
  const common = {
    serviceName: e.OTEL_SERVICE_NAME ?? app,
    sampler: { kind: e.OTEL_TRACES_SAMPLER, ratio: e.OTEL_TRACES_SAMPLER_ARG },
    scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
  };
  if (e.OTEL_TRACES_EXPORTER === 'console') return { exporter: 'console', ...common };
  const base = (e.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  return {
    exporter: 'otlp',
    ...common,
    protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
    url: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    headers: e.OTEL_EXPORTER_OTLP_HEADERS,
  };
}
