/**
 * The HTTP edge shared by Settle's NestJS apps (ingestion, the dispatcher's admin API): RFC 9457
 * problem details for every error, API-key guards, request parsing.
 */
export * from './problem-details.filter.js';
export * from './bearer-key.guard.js';
export * from './parse.js';
export * from './health.controller.js';
export * from './strict-json.js';
export * from './http-edge.js';
