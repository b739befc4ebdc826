import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROVIDER_DEFINITIONS, type ProviderDefinition } from '@settle/providers';
import { PROVIDER_FILES, renderProviderFiles, replaceBlock, shellSecretValue, stackSecrets } from '../../scripts/config/provider-files.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe("generated blocks of the providers' files (scripts/config/provider-files.ts)", () => {
  it('the committed blocks are what the declarations give (run `npm run config:examples` after a declaration change)', () => {
    for (const { path, text } of renderProviderFiles(read)) expect(read(path), path).toBe(text);
  });

  it('gives every provider its secrets, its sandbox and verifier variables, its compose entries and its doc rows', () => {
    const files = Object.fromEntries(renderProviderFiles(read).map((f) => [f.path, f.text]));
    for (const d of PROVIDER_DEFINITIONS) {
      for (const variable of Object.keys(d.stackVariables.generated)) expect(files['scripts/local/stack.sh']).toContain(`add_secret ${variable} "`);
      expect(files['scripts/local/stack.sh']).toContain(`"${d.verifier.baseUrlVariable}=$1"`);
      expect(files['docker-compose.yml']).toContain(`${d.verifier.baseUrlVariable}: http://provider-sandbox:3100`);
      expect(files['docs/webhooks.md']).toContain(`| ${d.label} | \`/v1/webhooks/${d.name}`);
    }
    expect(files['scripts/local/stack.sh']).toContain('"SANDBOX_MPESA_CALLBACK_URL=$1/v1/webhooks/mpesa/$MPESA_CALLBACK_TOKEN"');
    expect(files['scripts/local/stack.sh']).toContain('add_secret STRIPE_WEBHOOK_SECRET "whsec_$(random_base64 32)"');
    expect(files['docker-compose.yml']).toContain('SANDBOX_WEBHOOK_URL: http://ingestion:3000/v1/webhooks/paystack');
    expect(files['docker-compose.yml']).toContain('PAYSTACK_SECRET_KEY: ${PAYSTACK_SECRET_KEY:?set PAYSTACK_SECRET_KEY}');
  });

  it('writes a secret format as shell, quoting what the shell would expand', () => {
    expect(shellSecretValue({ prefix: 'FLWSECK_TEST-', random: 'hex', bytes: 16, suffix: '-X' })).toBe('"FLWSECK_TEST-$(random_hex 16)-X"');
    expect(shellSecretValue({ prefix: 'a$b"c', random: 'base64', bytes: 8 })).toBe('"a\\$b\\"c$(random_base64 8)"');
    expect(() => shellSecretValue({ random: 'hex', bytes: 0 })).toThrow('positive whole number');
  });

  it('refuses a definition whose secret variables and formats do not match', () => {
    const paystack = PROVIDER_DEFINITIONS[0]!;
    const missing: ProviderDefinition = { ...paystack, stackVariables: { ...paystack.stackVariables, generated: {} } };
    expect(() => stackSecrets([missing])).toThrow(`${paystack.name}: no stackVariables.generated format for`);
    const extra: ProviderDefinition = {
      ...paystack,
      stackVariables: { ...paystack.stackVariables, generated: { ...paystack.stackVariables.generated, UNUSED: { random: 'hex', bytes: 4 } } },
    };
    expect(() => stackSecrets([extra])).toThrow('formats UNUSED, which no credential or webhook secret names');
  });

  it('replaces only the lines between the markers, indented as the BEGIN marker, and refuses a file without them', () => {
    const text = ['a', '  # BEGIN generated: x (npm run config:examples)', '  old', '  # END generated: x', 'b'].join('\n');
    expect(replaceBlock(text, 'hash', 'x', ['one', 'two'])).toBe(
      ['a', '  # BEGIN generated: x (npm run config:examples)', '  one', '  two', '  # END generated: x', 'b'].join('\n'),
    );
    expect(() => replaceBlock('no markers', 'html', 'x', [], 'README.md')).toThrow('README.md: expected one "<!-- BEGIN generated: x');
    expect(PROVIDER_FILES.map((f) => f.path)).toEqual(['scripts/local/stack.sh', 'docker-compose.yml', 'README.md', 'docs/webhooks.md']);
  });
});
