import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject, type SecuritySchemeObject } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { z } from 'zod';
import { relaxInlineStylesUnder } from '../security-headers.js';
import { documentedAnswerSchema, problemResponses } from './decorators.js';
import { problemSchema } from './schemas.js';

/** A controller class, as the document builder looks its handlers up. */
export type ControllerClass = abstract new (...args: never) => unknown;

/** What one app's OpenAPI document states beside what its controllers' decorators say. */
export interface OpenApiDocumentOptions {
  title: string;
  /** Markdown: what the API is for, how to authenticate, the problem format. */
  description: string;
  /** The API's version (package.json's, {@link packageVersion}). */
  version: string;
  /** The document's security schemes, by the names the controllers' `ApiSecurity`/`ApiBearerAuth` use. */
  securitySchemes: Readonly<Record<string, SecuritySchemeObject>>;
  /** Paths documented: those starting with one of these (health, metrics and static files are not part of an API). */
  pathPrefixes: readonly string[];
  /** The app's controllers, whose `ApiProblems` metadata names each operation's problem codes. */
  controllers: readonly ControllerClass[];
  /**
   * `all`: an operation's security requirements (a controller's and a handler's decorators, which
   * `@nestjs/swagger` lists as alternatives) are all required at once, as one requirement (the
   * console's session cookie and CSRF header); `any` (default): alternatives, as listed (a
   * webhook signed by one provider's scheme or another's).
   */
  securityRequirement?: 'all' | 'any';
}

type Operation = {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, unknown>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of a document with its method, path and the controller and handler behind it. */
function operationsOf(
  document: OpenAPIObject,
  controllers: readonly ControllerClass[],
): Array<{ method: string; path: string; op: Operation; controller?: ControllerClass; handler?: object }> {
  const byName = new Map(controllers.map((c) => [c.name, c]));
  const found = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (!op || typeof op !== 'object') continue;
      // `@nestjs/swagger` names an operation `<Controller>_<handler>`.
      const [controllerName, handlerName] = (op.operationId ?? '').split('_');
      const controller = controllerName ? byName.get(controllerName) : undefined;
      const handler = controller && handlerName ? (controller.prototype as Record<string, unknown>)[handlerName] : undefined;
      found.push({ method, path, op, ...(controller ? { controller } : {}), ...(typeof handler === 'function' ? { handler } : {}) });
    }
  }
  return found;
}

/**
 * The OpenAPI 3.0 document of one Settle HTTP app, from its controllers' decorators
 * (`@nestjs/swagger`, with {@link ApiAnswer}, {@link ApiProblems}, {@link ApiBodyOf} and
 * {@link ApiQueryOf}): the paths under {@link OpenApiDocumentOptions.pathPrefixes}, the security
 * schemes, the RFC 9457 `Problem` schema, and each operation's problems as its controller's and
 * its handler's `ApiProblems` codes merged per status. Call before `app.init()` (the boot and the
 * generator) or after; it reads the app's routes without serving anything.
 */
export function buildOpenApiDocument(app: INestApplication, options: OpenApiDocumentOptions): OpenAPIObject {
  let config = new DocumentBuilder().setTitle(options.title).setDescription(options.description).setVersion(options.version);
  for (const [name, scheme] of Object.entries(options.securitySchemes)) config = config.addSecurity(name, scheme);
  const document = SwaggerModule.createDocument(app, config.build());
  document.paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => options.pathPrefixes.some((p) => path.startsWith(p))));
  document.components = { ...document.components, schemas: { ...document.components?.schemas, Problem: problemSchema() } };
  for (const { op, controller, handler } of operationsOf(document, options.controllers)) {
    if (options.securityRequirement === 'all' && op.security && op.security.length > 1) {
      op.security = [Object.assign({}, ...op.security) as Record<string, string[]>];
    }
    if (controller && handler) op.responses = { ...op.responses, ...problemResponses(controller, handler) };
  }
  return document;
}

/**
 * Each documented successful answer (a 2xx response of the document) and its body's schema (the
 * one {@link ApiAnswer} recorded; `null` for an answer without a body, a 204), keyed
 * `<METHOD> <route> <status>` with the route as Fastify names it (`/v1/checkouts/:reference`):
 * what the API tests check real answers with, so an answer that drifts from its document fails.
 */
export function documentedAnswers(document: OpenAPIObject, controllers: readonly ControllerClass[]): Map<string, z.ZodType | null> {
  const answers = new Map<string, z.ZodType | null>();
  for (const { method, path, op, handler } of operationsOf(document, controllers)) {
    const route = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const status of Object.keys(op.responses ?? {}).filter((s) => s.startsWith('2'))) {
      answers.set(`${method.toUpperCase()} ${route} ${status}`, (handler && documentedAnswerSchema(handler, Number(status))) ?? null);
    }
  }
  return answers;
}

/** Where an app serves its document: the JSON and a browsable page (Swagger UI, from the app itself). */
export interface OpenApiPaths {
  json: string;
  ui: string;
}

/**
 * Serves a document from the app: the JSON at `paths.json` and the Swagger UI at `paths.ui`
 * (`@nestjs/swagger` with `swagger-ui-dist`'s files, served by the app through `@fastify/static`;
 * nothing is loaded from the internet). Call before `app.init()`. The page's
 * Content-Security-Policy is the app's, widened only by the hashes of the page's own inline
 * styles (`relaxInlineStylesUnder`, docs/api.md, "Security headers").
 */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject, paths: OpenApiPaths): void {
  // BaseLayout: no top bar, whose logo is an SVG with a <style> element that a script inserts (a
  // policy would have to allow that style too); the document is the app's own, so the top bar's
  // URL field had nothing to offer.
  SwaggerModule.setup(paths.ui.slice(1), app, document, {
    jsonDocumentUrl: paths.json.slice(1),
    raw: ['json'],
    ui: true,
    swaggerOptions: { layout: 'BaseLayout' },
  });
  relaxInlineStylesUnder((app as NestFastifyApplication).getHttpAdapter().getInstance(), paths.ui);
}

/** The version in a repository's (or image's) package.json. @throws when it cannot be read */
export function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Writes a document as indented JSON with a final newline (`npm run openapi` formats it after). */
export function writeOpenApiDocument(file: string, document: OpenAPIObject): void {
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

/**
 * A PostgreSQL URL nothing listens on (port 1): the pool of an app built only to read its routes
 * and document (the generator, the document tests), which never queries it.
 */
export const INERT_DATABASE_URL = 'postgres://openapi@127.0.0.1:1/none';

/** One app's OpenAPI document for the generator: where it is committed and how to build it. */
export interface GeneratedOpenApiDocument {
  /** Absolute path of the committed JSON file. */
  file: string;
  build(): Promise<OpenAPIObject>;
}

/**
 * The OpenAPI generator's command line (`npm run openapi`, docs/api.md): builds each named
 * document (every one when none is named) from its app's controllers and writes it to its file.
 *
 * @param documents - every app's document, by app name.
 * @param names - the apps named on the command line.
 * @returns the files written.
 * @throws Error naming the known apps, for an unknown name.
 */
export async function runOpenApiGenerator(documents: Readonly<Record<string, GeneratedOpenApiDocument>>, names: readonly string[]): Promise<string[]> {
  const unknown = names.filter((name) => !(name in documents));
  if (unknown.length > 0) throw new Error(`unknown app ${unknown.join(', ')}; known: ${Object.keys(documents).join(', ')}`);
  const written: string[] = [];
  for (const name of names.length > 0 ? names : Object.keys(documents)) {
    const document = documents[name]!;
    writeOpenApiDocument(document.file, await document.build());
    written.push(document.file);
  }
  return written;
}
