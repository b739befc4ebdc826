import { ConfigError, parseEnv, sandboxCommonEnv, toSandboxCommon, type SandboxCommonConfig } from '@settle/config';
import type { z } from 'zod';
import { SIMULATION_LIST, type SimulationSettings } from './simulations.js';

/**
 * Every schema of the sandbox's variables: the common ones (`libs/config`), then each simulated
 * provider's (`simulations.ts`). The env example (`deploy/env/provider-sandbox.env.example`)
 * and the README's rows are generated from them.
 */
export const SANDBOX_ENV_SCHEMAS: readonly z.ZodObject[] = [sandboxCommonEnv, ...SIMULATION_LIST.map((s) => s.env)];

/** The provider sandbox's configuration: the common settings and each provider's. */
export type SandboxConfig = SandboxCommonConfig & { providers: SimulationSettings };

/**
 * Provider sandbox configuration. Paystack is always configured; each other provider is null
 * when its variables are not set (its endpoints then answer 503).
 *
 * @throws ConfigError listing every offending variable of every schema at once, never a value.
 */
export function loadSandboxConfig(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const common = parseEnv(sandboxCommonEnv, env);
  const problems = common.ok ? [] : [...common.problems];
  const providers: Record<string, unknown> = {};
  for (const simulation of SIMULATION_LIST) {
    const parsed = parseEnv(simulation.env, env);
    if (parsed.ok) providers[simulation.name] = simulation.settings(parsed.value);
    else problems.push(...parsed.problems);
  }
  if (!common.ok || problems.length > 0) throw new ConfigError(problems);
  return { ...toSandboxCommon(common.value), providers: providers as SimulationSettings };
}
