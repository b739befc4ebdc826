/**
 * Providers: one folder per provider (verification adapter and its pure verdict mapping,
 * webhook scheme, payload parsing, credential and secret names, configuration keys), the
 * shared pieces, the registry every app loops over, and an in-memory fake of the port.
 */
export * from './shared/index.js';
export * from './paystack/index.js';
export * from './stripe/index.js';
export * from './flutterwave/index.js';
export * from './mpesa/index.js';
export * from './registry.js';
export * from './fake/fake-provider.js';
