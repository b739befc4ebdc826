/**
 * The console API's real answers checked against its OpenAPI document
 * (libs/testing/src/answer-conformance.ts): every successful answer of a documented route is
 * parsed with the schema the document states for it (declared beside its route in apps/console/src/http/).
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { watchAnswers as watchDocumentedAnswers, type AnswerConformance } from '@settle/testing';
import { CONSOLE_CONTROLLERS } from '../src/http/console-api.module.js';
import { consoleOpenApiDocument } from '../src/http/openapi/document.js';

export type { AnswerConformance };

/** Registers the checking hook; call before `app.init()`. */
export function watchAnswers(app: NestFastifyApplication): AnswerConformance {
  return watchDocumentedAnswers(app, consoleOpenApiDocument(app, 'test', CONSOLE_CONTROLLERS), CONSOLE_CONTROLLERS);
}
