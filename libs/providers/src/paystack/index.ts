/** paystack: verification adapter, webhook scheme and definition (docs/providers.md). */
export * from './verify.js';
export * from './signature.js';
export * from './definition.js';
