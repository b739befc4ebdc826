/** Provider adapters: server-to-server verification queries, normalised to verdicts. */
export * from './provider.port.js';
export * from './http.js';
export * from './paystack.js';
