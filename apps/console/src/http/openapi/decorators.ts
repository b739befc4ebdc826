import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiResponse, type ApiResponseSchemaHost } from '@nestjs/swagger';
import { z } from 'zod';
import { problemAnswer } from './answers.js';

/** An OpenAPI schema object, as `@nestjs/swagger`'s decorators take it. */
export type SchemaObject = ApiResponseSchemaHost['schema'] & {
  properties?: Record<string, unknown>;
  required?: string[];
};

/**
 * A zod schema as an OpenAPI 3.0 schema object: the answer's shape (`output`) or what a request
 * may send (`input`, before defaults and coercions).
 */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): SchemaObject {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
}

/** Where the document keeps the problem-details schema (added by `consoleOpenApiDocument`). */
export const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

/** The problem-details schema object, for the document's components. */
export function problemSchema(): SchemaObject {
  return openApiSchema(problemAnswer);
}

/** Documents a successful answer with the body `schema` (application/json). */
export function ApiAnswer(status: number, schema: z.ZodType | null, description: string): MethodDecorator & ClassDecorator {
  return ApiResponse({ status, description, ...(schema ? { schema: openApiSchema(schema) } : {}) });
}

/**
 * Documents the route's errors: RFC 9457 problem details (`application/problem+json`), one
 * response per status listing its stable codes (docs/errors.md).
 *
 * @param problems - `[status, code]` pairs.
 */
export function ApiProblems(...problems: Array<[number, string]>): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor?.value as object | undefined) ?? target;
    const known = (Reflect.getMetadata(PROBLEMS_METADATA, holder) as Array<[number, string]> | undefined) ?? [];
    Reflect.defineMetadata(PROBLEMS_METADATA, [...known, ...problems], holder);
  };
}

/** Where {@link ApiProblems} keeps its `[status, code]` pairs, on a controller class or a handler. */
const PROBLEMS_METADATA = 'settle:openapi-problems';

/**
 * The problem responses of one operation: its controller's pairs and its handler's, merged per
 * status (a route's 503 and its controller's 503 are one response listing both codes), each an
 * RFC 9457 body referring to the document's `Problem` schema.
 */
export function problemResponses(
  controller: object,
  handler: object,
): Record<string, { description: string; content: Record<string, { schema: { $ref: string } }> }> {
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

/** Documents every field of a query schema (a zod object) as an optional query parameter. */
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
 * The refusals of the HTTP edge any JSON body may meet (libs/http, docs/errors.md): malformed or
 * ambiguous JSON (a repeated key, an integer not written as one), too large, another media type.
 * Spread into the route's one `ApiProblems` (a second one would replace the first's statuses).
 */
export const JSON_BODY_PROBLEMS: Array<[number, string]> = [
  [400, 'REQUEST.MALFORMED_JSON'],
  [400, 'REQUEST.DUPLICATE_KEY'],
  [400, 'REQUEST.AMBIGUOUS_NUMBER'],
  [413, 'REQUEST.BODY_TOO_LARGE'],
  [415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE'],
];
