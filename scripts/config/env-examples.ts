/**
 * Generates `deploy/env/<app>.env.example`, one file per app, from the apps' configuration
 * schemas (the source of truth): every variable, required or its default, its unit, what it is,
 * secrets marked and left blank. `npm run config:examples` writes them; the unit test
 * `test/config/env-examples.unit.spec.ts` fails when the committed files are not what the schemas
 * give, so they cannot drift.
 *
 * Each field's text is its zod metadata (`.meta({ description, unit, secret, defaultText })`, the
 * last for a default a transform supplies); the unit comes
 * from the metadata, else from the name's suffix (`_MS`, `_BYTES`, `_RATIO`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { consoleEnv, dispatcherEnv, ingestionEnv, projectorEnv, sweeperEnv, tracingEnv, verifierEnv } from '@settle/config';
import { providerIngestionEnv, providerVerifierEnv } from '@settle/providers';
import { privacyVaultEnv, vaultEnv } from '@settle/vault';
import { SANDBOX_ENV_SCHEMAS } from '../../apps/provider-sandbox/src/config.js';

/** The apps, each with the schemas whose variables it reads, in the order they are listed. */
export const APP_ENV_SCHEMAS = {
  ingestion: [ingestionEnv, providerIngestionEnv, vaultEnv, tracingEnv],
  verifier: [verifierEnv, providerVerifierEnv, vaultEnv, privacyVaultEnv, tracingEnv],
  'ledger-projector': [projectorEnv, vaultEnv, tracingEnv],
  sweeper: [sweeperEnv, tracingEnv],
  dispatcher: [dispatcherEnv, vaultEnv, tracingEnv],
  console: [consoleEnv, privacyVaultEnv, tracingEnv],
  // The sandbox's common variables (libs/config), then each simulated provider's (apps/provider-sandbox/src/simulations.ts).
  'provider-sandbox': SANDBOX_ENV_SCHEMAS,
} as const satisfies Record<string, readonly z.ZodObject[]>;

export type AppName = keyof typeof APP_ENV_SCHEMAS;

/** Folder of the generated files, relative to the repository root. */
export const ENV_EXAMPLES_DIR = 'deploy/env';

/** One variable as the generated file documents it. */
export interface EnvVariable {
  name: string;
  description: string;
  /** `true` when the app refuses to start without it. */
  required: boolean;
  /** The default, as it would be written in the environment; `undefined` when there is none. */
  default: string | undefined;
  /** Unit of a number (milliseconds, bytes, ...), `undefined` when it has none. */
  unit: string | undefined;
  /** Allowed values of an enumeration, `undefined` otherwise. */
  values: readonly string[] | undefined;
  /** A secret: always left blank in the example. */
  secret: boolean;
}

interface JsonProperty {
  description?: string;
  default?: unknown;
  /** The default as written in the environment, for a field whose default a transform supplies. */
  defaultText?: string;
  enum?: unknown[];
  unit?: string;
  secret?: boolean;
}

const UNIT_SUFFIXES: readonly (readonly [RegExp, string])[] = [
  [/_MS$/, 'milliseconds'],
  [/_BYTES$/, 'bytes'],
  [/_RATIO$/, 'fraction (0.1 is 10 %)'],
];

/**
 * The variables of an app, from its schemas' input JSON Schema (so defaults are as written in
 * the environment). A variable declared by two schemas keeps the first declaration.
 *
 * @throws Error naming a variable without a description.
 */
export function appVariables(app: AppName): EnvVariable[] {
  return schemaVariables(app, APP_ENV_SCHEMAS[app]);
}

/**
 * The variables of a list of schemas (see {@link appVariables}); `label` names them in errors.
 *
 * @throws Error naming a variable without a description.
 */
export function schemaVariables(label: string, schemas: readonly z.ZodObject[]): EnvVariable[] {
  const variables = new Map<string, EnvVariable>();
  for (const schema of schemas) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, JsonProperty>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      if (variables.has(name)) continue;
      if (!property.description) throw new Error(`${label}: ${name} has no description (add .meta({ description }) to its schema field)`);
      variables.set(name, {
        name,
        description: property.description,
        required: (json.required ?? []).includes(name),
        default: property.default === undefined ? property.defaultText : envText(property.default),
        unit: property.unit ?? UNIT_SUFFIXES.find(([suffix]) => suffix.test(name))?.[1],
        values: property.enum?.map(String),
        secret: property.secret === true,
      });
    }
  }
  return [...variables.values()];
}

function envText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

/** Wraps a comment to about 100 columns, each line starting with `# `. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + word.length + 1 > 98) {
      lines.push(`# ${line}`);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(`# ${line}`);
  return lines;
}

/** The text of `deploy/env/<app>.env.example`. */
export function renderEnvExample(app: AppName): string {
  const out = [
    `# Environment of ${app} (apps/${app}).`,
    '#',
    '# Generated by `npm run config:examples` from the configuration schemas (libs/config/src/schema/,',
    '# libs/providers/src/<provider>/definition.ts, apps/provider-sandbox/src/<provider>.sandbox.ts,',
    '# libs/vault/src/master-key-config.ts): do not edit.',
    '# A required variable is listed unset; an optional one is commented out, at its default when it',
    '# has one. Secrets are marked and always left blank.',
  ];
  for (const v of appVariables(app)) {
    const facts = [
      v.required ? 'Required.' : v.default === undefined ? 'Optional.' : `Default: ${v.default}.`,
      v.unit ? `Unit: ${v.unit}.` : '',
      v.values ? `One of: ${v.values.join(', ')}.` : '',
      v.secret ? 'Secret.' : '',
    ].filter(Boolean);
    out.push('', ...comment(v.description), ...comment(facts.join(' ')));
    const value = v.secret || v.default === undefined ? '' : v.default;
    out.push(v.required ? `${v.name}=` : `# ${v.name}=${value}`);
  }
  return `${out.join('\n')}\n`;
}

/** Every generated file: its path relative to the repository root, and its text. */
export function renderEnvExamples(): { path: string; text: string }[] {
  return (Object.keys(APP_ENV_SCHEMAS) as AppName[]).map((app) => ({ path: join(ENV_EXAMPLES_DIR, `${app}.env.example`), text: renderEnvExample(app) }));
}

/** Writes every file under `root` (the repository root). */
export function writeEnvExamples(root: string): string[] {
  mkdirSync(join(root, ENV_EXAMPLES_DIR), { recursive: true });
  return renderEnvExamples().map(({ path, text }) => {
    writeFileSync(join(root, path), text);
    return path;
  });
}
