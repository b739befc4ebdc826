/**
 * The HTTP edge shared by Settle's NestJS apps (ingestion, the dispatcher's admin API, the
 * console): RFC 9457 problem details for every error (those Fastify and Node's HTTP parser meet
 * before routing too), `WWW-Authenticate` on every 401, API-key guards, strict JSON body parsing
 * and the request limits (docs/reliability.md, "Hardening against abuse"); the OpenAPI documents
 * of their APIs, built from the controllers' decorators and served by each app (docs/api.md).
 */
export * from './problem-details.filter.js';
export * from './bearer-key.guard.js';
export * from './parse.js';
export * from './health.controller.js';
export * from './strict-json.js';
export * from './storable-text.js';
export * from './security-headers.js';
export * from './http-edge.js';
export * from './tracing.hook.js';
export * from './openapi/schemas.js';
export * from './openapi/decorators.js';
export * from './openapi/document.js';
/** Nest's framework logs through pino: defined in @settle/platform (the workers use it too), re-exported for the HTTP apps. */
export { PinoNestLogger } from '@settle/platform';
export * from './request-log.js';
export * from './keyset-cursor.js';
