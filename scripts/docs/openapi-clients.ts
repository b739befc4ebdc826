/**
 * The code generated from the committed OpenAPI documents (docs/api.md, "One schema per seam"):
 * each client of an HTTP API reads that API's answers through types generated from its document,
 * never through a hand copy. `npm run openapi` writes them after the documents; the test
 * test/openapi.unit.spec.ts fails when a committed file is not what its document gives.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenApiApp } from './openapi-documents.js';

/** A file generated from one app's committed OpenAPI document. */
export interface GeneratedClientFile {
  /** The app whose document it is generated from. */
  document: OpenApiApp;
  /** Where it is committed, from the repository's root. */
  file: string;
  /** `types`: openapi-typescript's `paths`/`operations`/`components`; `schemas`: the document itself, for validating answers at run time. */
  kind: 'types' | 'schemas';
}

/**
 * The generated files and who reads them: the console web app reads the console API's answers;
 * the console reads the dispatcher's admin API (its types, and its answers checked against the
 * document's schemas at run time).
 */
export const GENERATED_CLIENT_FILES: readonly GeneratedClientFile[] = [
  { document: 'console', file: 'apps/console/web/src/api/generated/console-api.ts', kind: 'types' },
  { document: 'dispatcher', file: 'apps/console/src/deliveries/generated/dispatcher-admin-api.ts', kind: 'types' },
  { document: 'dispatcher', file: 'apps/console/src/deliveries/generated/dispatcher-admin-api.schemas.ts', kind: 'schemas' },
];

const HEADER = (document: OpenApiApp) =>
  `// Generated from docs/api/${document}-openapi.json by \`npm run openapi\` (scripts/docs/openapi-clients.ts): do not edit.\n` +
  `// test/openapi.unit.spec.ts fails when this file is not what the document gives.\n`;

/**
 * The text of one generated file, from the committed document under `root`.
 *
 * @throws Error when the document cannot be read or is not an OpenAPI 3 document.
 */
export async function renderClientFile(root: string, generated: GeneratedClientFile): Promise<string> {
  const document = JSON.parse(readFileSync(join(root, 'docs', 'api', `${generated.document}-openapi.json`), 'utf8')) as { paths: unknown };
  if (generated.kind === 'schemas') {
    return `${HEADER(generated.document)}\n/** The document's paths, as committed: the answers' JSON Schemas (OpenAPI 3.0 dialect, \`nullable\`). */\nexport const paths: Readonly<Record<string, unknown>> = ${JSON.stringify(document.paths, null, 2)};\n`;
  }
  // `enumValues`: every enum's values as a `ReadonlyArray` too, so a client's closed lists (the web
  // app's providers, states, roles) are the document's, never a hand copy.
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { alphabetize: false, exportType: false, enumValues: true });
  return `${HEADER(generated.document)}\n${astToString(ast)}`;
}
