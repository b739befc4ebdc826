/**
 * `npm run config:examples`: writes `deploy/env/<app>.env.example` from the configuration
 * schemas (scripts/config/env-examples.ts), run from the repository root.
 */
import { writeEnvExamples } from './env-examples.js';

for (const path of writeEnvExamples(process.cwd())) process.stdout.write(`${path}\n`);
