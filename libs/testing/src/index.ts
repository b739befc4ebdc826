/**
 * Settle's test support (`@settle/testing`): the databases, brokers, registries and stacks the
 * integration tests, the end-to-end tests, the chaos bed and the benchmarks start of their own
 * (KurrentDB through testcontainers, where a Docker engine is reachable),
 * and the shared checks (answer conformance to the OpenAPI documents, HTTP fuzzing). Only tests, benchmarks and the tools of
 * scripts/ import it: no `src/` may (.dependency-cruiser.cjs, `testing-stays-out-of-src`).
 */
export * from './answer-conformance.js';
export * from './apps.js';
export * from './broker.js';
export * from './endpoints.js';
export * from './fault-proxy.js';
export * from './http-fuzz.js';
export * from './infra.js';
export * from './kurrentdb.js';
export * from './ledger-tampering.js';
export * from './postgres.js';
export * from './published.js';
export * from './recovery-report.js';
export * from './registry.js';
export * from './schema-history.js';
export * from './stack.js';
export * from './sweepers.js';
export * from './trace-receiver.js';
export * from './unmatched.js';
