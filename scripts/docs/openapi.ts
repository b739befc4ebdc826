import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runOpenApiGenerator } from '@settle/http';
import { CUSTOMER_EVENT_MODULES, renderCustomerEventModule } from './customer-events.js';
import { GENERATED_CLIENT_FILES, renderClientFile } from './openapi-clients.js';
import { openApiDocuments } from './openapi-documents.js';

/**
 * Writes the OpenAPI documents of the apps named (`ingestion`, `dispatcher`, `console`; every one
 * when none is) to docs/api/<app>-openapi.json, from their controllers, then the code generated
 * from the customer events' JSON Schemas (scripts/docs/customer-events.ts) and the clients' code
 * generated from the documents (scripts/docs/openapi-clients.ts): `npm run openapi` (and `openapi:<app>`)
 * keeps the committed documents and their generated clients in step with the code
 * (test/openapi.unit.spec.ts fails when they are not). Run from the repository's root, as npm
 * runs its scripts.
 */
const root = process.cwd();
const apps = process.argv.slice(2);
const write = (relative: string, text: string) => {
  const file = join(root, relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${relative}`);
};
const customerEvents = await renderCustomerEventModule(root);
for (const module of CUSTOMER_EVENT_MODULES) write(module, customerEvents);
for (const file of await runOpenApiGenerator(openApiDocuments(root), apps)) console.log(`wrote ${file}`);
for (const generated of GENERATED_CLIENT_FILES) {
  if (apps.length > 0 && !apps.includes(generated.document)) continue;
  write(generated.file, await renderClientFile(root, generated));
}
