/** What every provider shares: the port, HTTP and resilience, normalisation, webhook checks, the definition shape. */
export * from './provider.port.js';
export * from './transaction-list.port.js';
export * from './movement.port.js';
export * from './movements.js';
export * from './movement-list.port.js';
export * from './movement-list.js';
export * from './list.js';
export * from './http.js';
export * from './metrics.js';
export * from './bearer-get.js';
export * from './normalise.js';
export * from './signature-check.js';
export * from './webhook.js';
export * from './definition.js';
