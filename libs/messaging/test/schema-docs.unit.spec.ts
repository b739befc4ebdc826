import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '@settle/domain';
import { readSchemaFiles } from '../codegen/generate-contracts.js';
import { valueDoc, withValueDocs } from '../codegen/value-docs.js';

const SCHEMAS_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));
const files = readSchemaFiles();
const generated = withValueDocs(files, { provider: PROVIDERS });

// `npm run contracts:generate` runs this file with `--update`, which writes the schemas.
describe("the Avro schemas' generated value docs", () => {
  it.each(generated.map((f) => [f.file, f] as const))(
    "%s names the domain's providers (run `npm run contracts:generate` after adding one)",
    async (_name, file) => {
      await expect(file.text).toMatchFileSnapshot(`${SCHEMAS_DIR}${file.file}`);
    },
  );

  it('a provider added to the domain reaches every provider field, and nothing else in the file', () => {
    const added = withValueDocs(files, { provider: [...PROVIDERS, 'mollie'] });
    const changed = added.filter((f, i) => f.text !== generated[i]!.text);
    expect(changed.map((f) => f.file)).toContain('CheckoutRegistered.v1.avsc');
    for (const file of changed) {
      const before = generated.find((g) => g.file === file.file)!.text.split('\n');
      const after = file.text.split('\n');
      expect(after).toHaveLength(before.length);
      const lines = after.filter((line, i) => line !== before[i]);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(/"doc": ".*One of: paystack, stripe, flutterwave, mpesa, mollie\."/);
    }
    const record = JSON.parse(changed.find((f) => f.file === 'CheckoutRegistered.v1.avsc')!.text) as { fields: Array<{ name: string; doc: string }> };
    expect(record.fields.find((f) => f.name === 'provider')!.doc).toMatch(/One of: paystack, stripe, flutterwave, mpesa, mollie\.$/);
  });

  it('keeps the prose and replaces only the generated sentence', () => {
    expect(valueDoc('The payment provider.', ['a', 'b'])).toBe('The payment provider. One of: a, b.');
    expect(valueDoc('The payment provider. One of: a, b.', ['a', 'b', 'c'])).toBe('The payment provider. One of: a, b, c.');
    expect(valueDoc('', ['a'])).toBe('One of: a.');
  });

  it('refuses a provider field without a doc, whose prose only its author can write', () => {
    const bare = files.map((f) =>
      f.file === 'CheckoutRegistered.v1.avsc' ? { ...f, text: f.text.replace(/("name": "provider",\s*"type": "string"),\s*"doc": "[^"]*"/, '$1') } : f,
    );
    expect(bare.find((f) => f.file === 'CheckoutRegistered.v1.avsc')!.text).not.toBe(files.find((f) => f.file === 'CheckoutRegistered.v1.avsc')!.text);
    expect(() => withValueDocs(bare, { provider: PROVIDERS })).toThrow('CheckoutRegistered.provider needs a doc');
  });
});
