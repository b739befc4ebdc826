/**
 * Providers: one folder per provider (verification adapter and its pure verdict mapping,
 * webhook scheme, payload parsing, credential and secret names, configuration keys; each
 * folder's `definition.ts` exposes it, re-exported by the registry), the shared pieces, the
 * registry every app loops over, and an in-memory fake of the port.
 */
export * from './shared/index.js';
export * from './registry.js';
export * from './fake/fake-provider.js';
