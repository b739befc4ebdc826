/** Typed, validated configuration: one zod schema per app, parsed once at boot. */
export * from './secret.js';
export * from './schema/index.js';
export * from './load.js';
export * from './tracing.js';
