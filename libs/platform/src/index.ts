/** Small shared infrastructure: logging, tracing, PostgreSQL and its versioned migrations, deterministic ids, problem details, health probes. */
export * from './logger.js';
export * from './db.js';
export * from './migrations.js';
export * from './ids.js';
export * from './lifecycle.js';
export * from './problem.js';
export * from './metrics.js';
export * from './health.js';
export * from './http.js';
export * from './tracing.js';
export * from './trace-context.js';
export * from './nest-logger.js';
