/**
 * `npm run config:examples`: writes `deploy/env/<app>.env.example` from the configuration
 * schemas (scripts/config/env-examples.ts), and the generated blocks of the per-provider parts
 * of the stack script, the compose file, the README and docs/webhooks.md from the providers'
 * declarations (scripts/config/provider-files.ts), run from the repository root.
 */
import { writeEnvExamples } from './env-examples.js';
import { writeProviderFiles } from './provider-files.js';

for (const path of [...writeEnvExamples(process.cwd()), ...writeProviderFiles(process.cwd())]) process.stdout.write(`${path}\n`);
