/** mpesa: verification adapter, webhook scheme and definition (docs/providers.md). */
export * from './verify.js';
export * from './callback.js';
export * from './definition.js';
