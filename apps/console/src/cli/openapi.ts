import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildConsoleOpenApi } from '../http/openapi/generate.js';

/** The repository's root, from `dist/apps/console/src/cli/`. */
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

/**
 * Writes the console's OpenAPI document (docs/console.md, "API") to the path given, as JSON:
 * `npm run openapi:console` keeps `docs/api/console-openapi.json` in step with the controllers
 * (a unit test fails when it is not).
 */
async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: openapi.js <output.json>');
  writeFileSync(target, `${JSON.stringify(await buildConsoleOpenApi(ROOT), null, 2)}\n`);
}

await main();
