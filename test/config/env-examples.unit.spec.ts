import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { APP_ENV_SCHEMAS, appVariables, ENV_EXAMPLES_DIR, renderEnvExamples, schemaVariables, type AppName } from '../../scripts/config/env-examples.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const apps = Object.keys(APP_ENV_SCHEMAS) as AppName[];

/** Variables the README documents that no app schema reads: the local scripts' own. */
const SCRIPT_ONLY_VARIABLES = ['SETTLE_APP_NODE_OPTIONS', 'SETTLE_SANDBOX_NODE_OPTIONS'];

/** The variable names in the first column of the README's configuration table. */
function readmeVariables(): Set<string> {
  const section = read('README.md').split('\n## Configuration\n')[1]!.split('\n## ')[0]!;
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
  return new Set(names);
}

describe('deploy/env/<app>.env.example generated from the configuration schemas', () => {
  it('the committed files are what the schemas give (run `npm run config:examples` after a schema change)', () => {
    const generated = renderEnvExamples();
    expect(readdirSync(new URL(`${ENV_EXAMPLES_DIR}/`, root)).sort()).toEqual(generated.map((f) => f.path.split('/').at(-1)).sort());
    for (const { path, text } of generated) expect(read(path), path).toBe(text);
  });

  it('lists a required variable unset, an optional one at its default with its unit, and leaves secrets blank', () => {
    const files = Object.fromEntries(renderEnvExamples().map((f) => [f.path.split('/').at(-1)!.replace('.env.example', ''), f.text]));
    expect(files.verifier).toContain('# Required.\nKAFKA_BROKERS=\n');
    expect(files.verifier).toMatch(/# Default: 5000\. Unit: milliseconds\.\n# PROVIDER_TIMEOUT_MS=5000\n/);
    expect(files.console).toMatch(/# Required\. Secret\.\nCONSOLE_INGESTION_ADMIN_API_KEY=\n/);
    expect(files['provider-sandbox']).toMatch(/# Optional\. Secret\.\n# STRIPE_SECRET_KEY=\n/);
    expect(files.dispatcher).toContain('# DISPATCHER_RETRY_SCHEDULE=5s,1m,5m,30m,2h,5h,10h,10h,14h,14h,14h,14h,14h\n');
    expect(files.ingestion).toContain('# SETTLE_VAULT_MASTER_KEYS=\n');
    expect(files.ingestion).toContain('# WEBHOOK_TOLERANCE_MS=300000\n');
  });

  it('refuses a variable without a description', () => {
    const schema = z.object({ DOCUMENTED: z.string().meta({ description: 'documented' }), UNDOCUMENTED: z.string() });
    expect(() => schemaVariables('example', [schema])).toThrow('example: UNDOCUMENTED has no description');
  });

  it('keeps the first declaration of a variable two schemas declare', () => {
    const first = z.object({ SHARED: z.coerce.number().default(1).meta({ description: 'first' }) });
    const second = z.object({ SHARED: z.string().meta({ description: 'second' }) });
    expect(schemaVariables('example', [first, second])).toEqual([
      { name: 'SHARED', description: 'first', required: false, default: '1', unit: undefined, values: undefined, secret: false },
    ]);
  });

  it("every app's variable is in the README's configuration table, and the table names no other", () => {
    const fromSchemas = new Set(apps.flatMap((app) => appVariables(app).map((v) => v.name)));
    const inReadme = readmeVariables();
    expect([...fromSchemas].filter((name) => !inReadme.has(name)).sort(), 'missing from the README').toEqual([]);
    expect([...inReadme].filter((name) => !fromSchemas.has(name) && !SCRIPT_ONLY_VARIABLES.includes(name)).sort(), 'not read by any app').toEqual([]);
  });
});
