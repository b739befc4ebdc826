import type { ApiResponseSchemaHost } from '@nestjs/swagger';
import { z } from 'zod';

/** An OpenAPI 3.0 schema object, as `@nestjs/swagger`'s decorators take it. */
export type SchemaObject = ApiResponseSchemaHost['schema'] & {
  properties?: Record<string, unknown>;
  required?: string[];
};

/**
 * A zod schema as an OpenAPI 3.0 schema object: the answer's shape (`output`) or what a request
 * may send (`input`, before defaults and coercions). Refinements zod cannot express in JSON
 * Schema (a currency checked against ISO 4217, an ISO 8601 duration) are left out; `.describe()`
 * texts become descriptions.
 */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): SchemaObject {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
}

/**
 * RFC 9457 problem details, the body of every error answer of every Settle HTTP app
 * (`application/problem+json`; `ProblemDetails` in `@settle/platform`, docs/errors.md). Loose:
 * a problem may carry extension members.
 */
export const problemAnswer = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  code: z.string().describe('Stable machine-readable code (docs/errors.md)'),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/** Where a document keeps the problem-details schema (added by `buildOpenApiDocument`). */
export const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

/** The problem-details schema object, for a document's components. */
export function problemSchema(): SchemaObject {
  return openApiSchema(problemAnswer);
}

/** An ISO 8601 time in UTC, as every Settle API writes times (`Date.toISOString()`). */
export const isoTime = z.iso.datetime({ offset: false }).describe('ISO 8601, UTC');
