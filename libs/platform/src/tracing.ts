import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { parseHeaderList, type TracingConfig, type TracingSampler } from '@settle/config';
import type { Logger } from 'pino';

/** The tracing of a running app: whether an SDK records spans, and how to flush and stop it. */
export interface Tracing {
  /** `false` when tracing is off: nothing was registered and the OpenTelemetry API is a no-op. */
  readonly enabled: boolean;
  /**
   * Exports the spans still buffered and stops the SDK, waiting at most `timeoutMs`
   * milliseconds (default 5 000), so a collector that is gone never holds a shutdown up.
   * Never throws: a failed export is logged.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** Tracing that is off: nothing registered, nothing to stop. */
const OFF: Tracing = { enabled: false, shutdown: async () => undefined };

/** The installed SDK, so a second start (a test booting two apps in one process) replaces it. */
let installed: TracerProvider | null = null;

/** The sampler the specification names (`OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`). */
function samplerOf(sampler: TracingSampler): Sampler {
  switch (sampler.kind) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(sampler.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(sampler.ratio) });
  }
}

/** The exporter a configuration names (`OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_*`). */
function exporterOf(config: Exclude<TracingConfig, { exporter: 'none' }>): SpanExporter {
  if (config.exporter === 'console') return new ConsoleSpanExporter();
  // Checked when the configuration was parsed: a list that does not parse never gets here.
  const headers = (config.headers ? parseHeaderList(config.headers.reveal()) : null) ?? {};
  const options = { url: config.url, headers, timeoutMillis: 10_000 };
  return config.protocol === 'http/json' ? new OtlpJsonExporter(options) : new OtlpProtobufExporter(options);
}

/**
 * Starts OpenTelemetry tracing for an app, once, at boot (docs/observability.md, "Traces"):
 * with the exporter `none` (the default) nothing is registered, so `@opentelemetry/api` stays
 * its no-op self (spans are non-recording, no trace context is injected anywhere) and this
 * returns a {@link Tracing} that is not `enabled`. Otherwise it registers, process-wide, an
 * AsyncLocalStorage context manager, the W3C trace-context propagator (`traceparent`,
 * `tracestate`) and a tracer provider with the configured sampler, the resource
 * `service.name`, and a batch span processor (`OTEL_BSP_SCHEDULE_DELAY`) feeding the exporter.
 *
 * The SDK's own diagnostics (a collector that cannot be reached, an export refused) are logged
 * at `warn` level on `logger`; the export headers, which may hold a collector's key, are never logged.
 *
 * @param options.exporter - replaces the configured exporter, with a span processor that
 *   exports each span as it ends (tests read the spans from an in-memory exporter).
 */
export function startTracing(config: TracingConfig, logger: Logger, options: { exporter?: SpanExporter } = {}): Tracing {
  if (config.exporter === 'none') return OFF;
  if (installed) {
    void installed.shutdown().catch(() => undefined);
    trace.disable();
    propagation.disable();
    context.disable();
  }
  const log = logger.child({ component: 'opentelemetry' });
  diag.setLogger(
    {
      error: (message, ...args) => log.warn({ detail: args.map(String) }, message),
      warn: (message, ...args) => log.warn({ detail: args.map(String) }, message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const exporter = options.exporter ?? exporterOf(config);
  const processor = options.exporter
    ? new SimpleSpanProcessor({ exporter })
    : new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.scheduleDelayMs, exportTimeoutMillis: 10_000 });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }),
    sampler: samplerOf(config.sampler),
    spanProcessors: [processor],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  installed = provider;
  log.info({ exporter: config.exporter, serviceName: config.serviceName, sampler: config.sampler.kind }, 'tracing on');
  return {
    enabled: true,
    async shutdown(timeoutMs = 5_000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      try {
        const ended = await Promise.race([provider.shutdown().then(() => 'done' as const), late]);
        if (ended === 'late') log.warn({ timeoutMs }, 'spans not exported before the shutdown deadline; dropped');
      } catch (error) {
        log.warn({ err: error }, 'tracing shutdown failed; buffered spans dropped');
      } finally {
        clearTimeout(timer);
        if (installed === provider) {
          installed = null;
          trace.disable();
          propagation.disable();
          context.disable();
        }
      }
    },
  };
}
