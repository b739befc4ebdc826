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
  const byStatus = new Map<number, string[]>();
  for (const [status, code] of problems) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  const schema = { $ref: PROBLEM_SCHEMA_REF };
  return applyDecorators(
    ...[...byStatus].map(([status, codes]) =>
      ApiResponse({ status, description: codes.map((c) => `\`${c}\``).join(', '), content: { 'application/problem+json': { schema } } }),
    ),
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

/** Documents a JSON request body by its schema. */
export function ApiBodyOf(schema: z.ZodType, description?: string): MethodDecorator {
  return ApiBody({ schema: openApiSchema(schema, 'input'), ...(description ? { description } : {}) });
}
