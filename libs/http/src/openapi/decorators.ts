import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { z } from 'zod';
import { openApiSchema, PROBLEM_SCHEMA_REF, type SchemaObject } from './schemas.js';

/** Where {@link ApiProblems} keeps its `[status, code]` pairs, on a controller class or a handler. */
const PROBLEMS_METADATA = 'settle:openapi-problems';
/** Where {@link ApiAnswer} keeps its `[status, schema]` pairs, on a handler. */
const ANSWERS_METADATA = 'settle:openapi-answers';

/** The handler (a method decorator's descriptor) or the class (a class decorator's target). */
function holderOf(target: object, descriptor?: PropertyDescriptor): object {
  return (descriptor?.value as object | undefined) ?? target;
}

/**
 * Documents a successful answer with the body `schema` (application/json), or none (`null`, a
 * 204), and records the schema on the handler, so the API tests parse real answers with the
 * very schema the document states ({@link documentedAnswerSchema}).
 *
 * @param status - the HTTP status of the answer (2xx).
 */
export function ApiAnswer(status: number, schema: z.ZodType | null, description: string): MethodDecorator {
  const response = ApiResponse({ status, description, ...(schema ? { schema: openApiSchema(schema) } : {}) });
  return (target, key, descriptor) => {
    if (schema) {
      const holder = holderOf(target, descriptor);
      const known = (Reflect.getMetadata(ANSWERS_METADATA, holder) as Array<[number, z.ZodType]> | undefined) ?? [];
      Reflect.defineMetadata(ANSWERS_METADATA, [...known, [status, schema]], holder);
    }
    response(target, key, descriptor);
  };
}

/** The schema {@link ApiAnswer} recorded on a handler for a status; `undefined` when none. */
export function documentedAnswerSchema(handler: object, status: number): z.ZodType | undefined {
  const answers = (Reflect.getMetadata(ANSWERS_METADATA, handler) as Array<[number, z.ZodType]> | undefined) ?? [];
  return answers.find(([s]) => s === status)?.[1];
}

/**
 * Documents the route's errors: RFC 9457 problem details (`application/problem+json`), one
 * response per status listing its stable codes (docs/errors.md). On a controller, the codes
 * apply to each of its routes, merged with the route's own.
 *
 * @param problems - `[status, code]` pairs.
 */
export function ApiProblems(...problems: Array<[number, string]>): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = holderOf(target, descriptor);
    const known = (Reflect.getMetadata(PROBLEMS_METADATA, holder) as Array<[number, string]> | undefined) ?? [];
    Reflect.defineMetadata(PROBLEMS_METADATA, [...known, ...problems], holder);
  };
}

/** One documented problem response: its codes and the problem-details body. */
export interface ProblemResponse {
  description: string;
  content: Record<string, { schema: { $ref: string } }>;
}

/**
 * The problem responses of one operation: its controller's pairs and its handler's, merged per
 * status (a route's 503 and its controller's 503 are one response listing both codes), each an
 * RFC 9457 body referring to the document's `Problem` schema ({@link PROBLEM_SCHEMA_REF}).
 */
export function problemResponses(controller: object, handler: object): Record<string, ProblemResponse> {
  const pairs = [
    ...((Reflect.getMetadata(PROBLEMS_METADATA, controller) as Array<[number, string]> | undefined) ?? []),
    ...((Reflect.getMetadata(PROBLEMS_METADATA, handler) as Array<[number, string]> | undefined) ?? []),
  ];
  const byStatus = new Map<number, string[]>();
  for (const [status, code] of pairs) {
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        { description: codes.map((c) => `\`${c}\``).join(', '), content: { 'application/problem+json': { schema: { $ref: PROBLEM_SCHEMA_REF } } } },
      ]),
  );
}

/** Documents every field of a query schema (a zod object) as a query parameter, required as the schema says. */
export function ApiQueryOf(schema: z.ZodObject): MethodDecorator {
  const json = openApiSchema(schema, 'input');
  const required = new Set(json.required ?? []);
  return applyDecorators(
    ...Object.entries(json.properties ?? {}).map(([name, property]) => ApiQuery({ name, required: required.has(name), schema: property as SchemaObject })),
  );
}

/** Documents a JSON request body by its schema; list {@link JSON_BODY_PROBLEMS} among the route's problems. */
export function ApiBodyOf(schema: z.ZodType, description?: string): MethodDecorator {
  return ApiBody({ schema: openApiSchema(schema, 'input'), ...(description ? { description } : {}) });
}

/**
 * The refusals of the HTTP edge any JSON body may meet (`installHttpEdge`, docs/errors.md):
 * malformed or ambiguous JSON (a repeated key, an integer not written as one), text that cannot be
 * stored as sent (a NUL, a lone surrogate, bytes that are not UTF-8), too large, another media
 * type. Spread into the route's one `ApiProblems` with its own codes.
 */
export const JSON_BODY_PROBLEMS: Array<[number, string]> = [
  [400, 'REQUEST.MALFORMED_JSON'],
  [400, 'REQUEST.DUPLICATE_KEY'],
  [400, 'REQUEST.AMBIGUOUS_NUMBER'],
  [400, 'REQUEST.INVALID_CHARACTER'],
  [413, 'REQUEST.BODY_TOO_LARGE'],
  [415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE'],
];

/**
 * What every document's description says of the refusals any request may meet before it reaches
 * a route (`installHttpEdge`, Node's parser; docs/errors.md, "The HTTP edge"), which the
 * operations do not list one by one.
 */
export const EDGE_PROBLEMS_NOTE =
  'Any request may also meet the HTTP edge\'s refusals of malformed requests, not listed per operation: 400 `REQUEST.MALFORMED_URL` and `REQUEST.MALFORMED_HTTP`, 400 `REQUEST.INVALID_CHARACTER` (a NUL or an unpaired surrogate in a path parameter, a query parameter or a header), 405 `REQUEST.METHOD_NOT_ALLOWED` (with `Allow`), 408 `REQUEST.TIMEOUT`, 414 `REQUEST.URI_TOO_LONG`, 431 `REQUEST.HEADERS_TOO_LARGE` (docs/errors.md, "The HTTP edge").';
