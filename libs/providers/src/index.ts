/** Provider adapters: server-to-server verification queries, normalised to verdicts. */
export * from './provider.port.js';
export * from './http.js';
export * from './bearer-get.js';
export * from './normalise.js';
export * from './paystack.js';
export * from './stripe.js';
export * from './flutterwave.js';
export * from './mpesa.js';
