import 'reflect-metadata';
import { runOpenApiGenerator } from '@settle/http';
import { openApiDocuments } from './openapi-documents.js';

/**
 * Writes the OpenAPI documents of the apps named (`ingestion`, `dispatcher`, `console`; every one
 * when none is) to docs/api/<app>-openapi.json, from their controllers: `npm run openapi` (and
 * `openapi:<app>`) keeps the committed documents in step with the code (test/openapi.unit.spec.ts
 * fails when they are not). Run from the repository's root, as npm runs its scripts.
 */
for (const file of await runOpenApiGenerator(openApiDocuments(process.cwd()), process.argv.slice(2))) console.log(`wrote ${file}`);
