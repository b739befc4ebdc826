/**
 * The customer events' code, generated from their JSON Schemas (docs/delivery.md, "Payload"):
 * `docs/api/customer-events/<kind>.schema.json` is the one statement of what Settle POSTs to a
 * customer endpoint. `npm run openapi` writes, from them, the same module to the dispatcher (its
 * payload type) and to the receiver kit (its types and the schemas it validates against, kept
 * inside the kit's own package so that it stays standalone); the dispatcher's OpenAPI document
 * publishes the schemas as its webhooks. test/openapi.unit.spec.ts fails when a committed module
 * is not what the schemas give.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITLEMENT_EVENT_KINDS } from '@settle/domain';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

/** Where the schemas are, from the repository's root. */
export const CUSTOMER_EVENT_SCHEMA_DIR = 'docs/api/customer-events';

/** The modules generated from them, from the repository's root. */
export const CUSTOMER_EVENT_MODULES = [
  'apps/dispatcher/src/deliveries/generated/customer-events.ts',
  'libs/receiver/src/generated/customer-events.ts',
] as const;

/**
 * The schemas by kind, in the domain's order of entitlement event kinds.
 *
 * @throws Error when a kind of libs/domain has no schema, or a schema names no kind of libs/domain
 *   (a kind is added to the domain and given its schema in the same change).
 */
export function readCustomerEventSchemas(root: string): Array<{ kind: string; schema: JSONSchema & { title: string } }> {
  const dir = join(root, CUSTOMER_EVENT_SCHEMA_DIR);
  const files = readdirSync(dir).filter((f) => f.endsWith('.schema.json'));
  const kinds = files.map((f) => f.slice(0, -'.schema.json'.length));
  const missing = ENTITLEMENT_EVENT_KINDS.filter((k) => !kinds.includes(k));
  const unknown = kinds.filter((k) => !(ENTITLEMENT_EVENT_KINDS as readonly string[]).includes(k));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(
      `customer event schemas do not match libs/domain's kinds: missing ${missing.join(', ') || 'none'}, unknown ${unknown.join(', ') || 'none'}`,
    );
  }
  return ENTITLEMENT_EVENT_KINDS.map((kind) => ({
    kind,
    schema: JSON.parse(readFileSync(join(dir, `${kind}.schema.json`), 'utf8')) as JSONSchema & { title: string },
  }));
}

/** The generated module's text, the same for the dispatcher and the receiver kit. */
export async function renderCustomerEventModule(root: string): Promise<string> {
  const schemas = readCustomerEventSchemas(root);
  const types: string[] = [];
  for (const { schema } of schemas) {
    types.push(await compile(schema, schema.title, { bannerComment: '', additionalProperties: false, format: false, declareExternallyReferenced: true }));
  }
  const data = Object.fromEntries(schemas.map(({ kind, schema }) => [kind, schema]));
  return [
    `// Generated from ${CUSTOMER_EVENT_SCHEMA_DIR}/*.schema.json by \`npm run openapi\` (scripts/docs/customer-events.ts): do not edit.`,
    '// test/openapi.unit.spec.ts fails when this file is not what the schemas give.',
    '',
    ...types.map((t) => t.trim()),
    '',
    '/** Every customer event kind this build sends or applies, in the order Settle lists them. */',
    `export const CUSTOMER_EVENT_KINDS = ${JSON.stringify(schemas.map((s) => s.kind))} as const;`,
    '',
    '/** A customer event of any kind this build knows. */',
    `export type CustomerEvent = ${schemas.map((s) => s.schema.title).join(' | ')};`,
    '',
    '/** The JSON Schema (draft-07) of each kind, as committed. */',
    `export const CUSTOMER_EVENT_SCHEMAS = ${JSON.stringify(data, null, 2)} as const;`,
    '',
  ].join('\n');
}
