import { describe, expect, it } from 'vitest';
import { ConfigError, loadTracingConfig, parseHeaderList, Secret } from '@settle/config';

describe('tracing configuration (the OpenTelemetry SDK variables)', () => {
  it('is off when nothing is set, or the exporter is blank or `none`', () => {
    expect(loadTracingConfig('verifier', {})).toEqual({ exporter: 'none' });
    expect(loadTracingConfig('verifier', { OTEL_TRACES_EXPORTER: '' })).toEqual({ exporter: 'none' });
    expect(loadTracingConfig('verifier', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ exporter: 'none' });
  });

  it("sends OTLP over HTTP to the specification's endpoints, named after the app unless OTEL_SERVICE_NAME says otherwise", () => {
    expect(loadTracingConfig('verifier', { OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      exporter: 'otlp',
      serviceName: 'verifier',
      sampler: { kind: 'parentbased_always_on', ratio: 1 },
      scheduleDelayMs: 5_000,
      protocol: 'http/protobuf',
      url: 'http://localhost:4318/v1/traces',
      headers: undefined,
    });
    const base = loadTracingConfig('verifier', {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_SERVICE_NAME: 'settle-verifier-eu',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/otel/',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    expect(base).toMatchObject({
      serviceName: 'settle-verifier-eu',
      url: 'https://collector.example:4318/otel/v1/traces',
      protocol: 'http/json',
      sampler: { kind: 'parentbased_traceidratio', ratio: 0.25 },
      scheduleDelayMs: 200,
    });
    const full = loadTracingConfig('verifier', {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
    });
    expect(full).toMatchObject({ url: 'https://traces.example/ingest' });
  });

  it('keeps the export headers as a secret and refuses a malformed list without echoing it', () => {
    const config = loadTracingConfig('ingestion', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cr%3Dt,tenant=settle' });
    expect(config.exporter === 'otlp' && config.headers).toBeInstanceOf(Secret);
    expect(JSON.stringify(config)).not.toContain('s3cr');
    expect(parseHeaderList('x-api-key=s3cr%3Dt,tenant=settle')).toEqual({ 'x-api-key': 's3cr=t', tenant: 'settle' });
    const refused = () => loadTracingConfig('ingestion', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'not-a-pair-s3cret' });
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(refused).not.toThrow(/s3cret/);
  });

  it('refuses what Settle cannot honour: gRPC, an unknown exporter, a ratio over 1', () => {
    expect(() => loadTracingConfig('ingestion', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => loadTracingConfig('ingestion', { OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => loadTracingConfig('ingestion', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});
