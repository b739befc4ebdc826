import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import ts from 'typescript';
import TJS from 'typescript-json-schema';
import type { SandboxStripeContract } from './stripe.types.js';

/** The kinds of Stripe answer the contract (stripe.types.ts, `SandboxStripeContract`) has a shape for. */
export type StripeContractType = keyof SandboxStripeContract;

/** The `stripe` package's types as JSON Schemas, and a check of a JSON value against one. */
export interface StripeContract {
  /** What in `value` breaks the type's schema (empty when it conforms): a missing required field, a wrong type or value, a field the type does not declare. */
  problems(type: StripeContractType, value: unknown): string[];
  /** The fields the type declares always present (`required` of its object schema). */
  required(type: 'payment_intent' | 'charge'): string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What of a generated schema the checks read. */
interface SchemaNode {
  $ref?: string;
  required?: string[];
}
interface ContractSchema {
  properties: Record<StripeContractType, SchemaNode>;
  definitions: Record<string, SchemaNode>;
}

/**
 * Generates the JSON Schema of `SandboxStripeContract` (stripe.types.ts) from the installed
 * `stripe` package's declarations (typescript-json-schema: every declared property required
 * unless optional, no property the type does not declare), then compiles it with Ajv. Some
 * seconds: build it once per test file.
 */
export function stripeContract(): StripeContract {
  const file = fileURLToPath(new URL('./stripe.types.ts', import.meta.url));
  // Compiler options in their JSON form (as in a tsconfig.json): the generator converts them.
  const program = TJS.getProgramFromFiles([file], { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: [] });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (diagnostics.length > 0) throw new Error(`the stripe types do not compile: ${diagnostics.join('; ')}`);
  const generator = TJS.buildGenerator(program, { required: true, noExtraProps: true, ignoreErrors: true, ref: true, aliasRef: false, titles: false });
  if (!generator) throw new Error('typescript-json-schema could not read the stripe types');
  const schema = readableNames(generator.getSchemaForSymbol('SandboxStripeContract') as unknown as Json) as unknown as ContractSchema;
  const kinds = Object.keys(schema.properties) as StripeContractType[];
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(schema, 'stripe');
  const validators = new Map<StripeContractType, ValidateFunction>(kinds.map((kind) => [kind, ajv.getSchema(`stripe#/properties/${kind}`)!] as const));
  const resolve = (node: SchemaNode): SchemaNode => (node.$ref ? resolve(schema.definitions[node.$ref.replace('#/definitions/', '')]!) : node);
  return {
    problems(type, value) {
      const validate = validators.get(type)!;
      if (validate(value)) return [];
      // Ajv reports every branch of a failed anyOf: the deepest paths say what is wrong.
      const errors = validate.errors ?? [];
      const deepest = Math.max(...errors.map((e) => e.instancePath.split('/').length));
      return [
        ...new Set(
          errors
            .filter((e) => e.instancePath.split('/').length === deepest)
            .map(
              (e) =>
                `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
            ),
        ),
      ];
    },
    required: (type) => resolve(schema.properties[type]).required ?? [],
  };
}

/**
 * The generator names the package's types by module path (`import("/…/stripe/esm/resources/Charges").Charge`),
 * which do not survive as JSON pointers: renamed to `Charges.Charge`, `$ref`s with them. An empty
 * `anyOf` (what `deleted?: void` comes out as) becomes `not: {}`, which Ajv accepts.
 */
function readableNames(schema: Json): Json {
  const root = schema as { definitions: Record<string, Json> };
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of Object.keys(root.definitions)) {
    const base = name.replace(/import\("[^"]*\/([^/"]+)"(?:,\{[^}]*\}\})?\)\./g, '$1.').replace(/[^A-Za-z0-9_.]/g, '_');
    let readable = base;
    for (let n = 2; taken.has(readable); n++) readable = `${base}_${n}`;
    taken.add(readable);
    names.set(name, readable);
  }
  const rename = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(rename);
    if (node === null || typeof node !== 'object') return node;
    // `deleted?: void` (a live object's marker) comes out as an empty `anyOf`: no JSON value is `void`.
    if (Array.isArray(node.anyOf) && node.anyOf.length === 0) return { not: {} };
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
          const name = decodeURIComponent(value.slice('#/definitions/'.length));
          return [key, `#/definitions/${names.get(name) ?? name}`];
        }
        return [key, rename(value)];
      }),
    );
  };
  const renamed = rename(root) as { definitions: Record<string, Json> };
  renamed.definitions = Object.fromEntries(Object.entries(renamed.definitions).map(([name, value]) => [names.get(name) ?? name, value]));
  return renamed;
}
