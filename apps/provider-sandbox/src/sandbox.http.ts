import type { FastifyReply } from 'fastify';
import type { ProviderSimulator } from './provider.simulator.js';
import type { ProviderName, SandboxAnswer } from './sandbox.core.js';

/** Injection token of the sandbox configuration. */
export const SANDBOX_CONFIG = Symbol('SandboxConfig');

/** What the provider-facing controllers read of the configuration. */
export interface SandboxHttpSettings {
  /** How long a "time out" answer holds the connection, milliseconds. */
  timeoutHoldMs: number;
}

/** Injection token of the sandbox's simulators (its `SandboxRegistry`), as the provider-facing controllers see them. */
export const SANDBOX_SIMULATORS = Symbol('SandboxSimulators');

/** The simulators as the provider-facing controllers see them. */
export interface SimulatorLookup {
  /** The simulator of a provider name: undefined when no such provider, null when not configured. */
  simulator(name: string): ProviderSimulator | null | undefined;
  /** Body of the 503 of a provider that is not configured. */
  notConfigured(name: ProviderName): { error: string; provider: string; message: string };
}

/**
 * Sends a simulated provider's answer. A `hang` holds the connection for `holdMs` (longer
 * than any sane client time-out) and then answers its 504.
 */
export async function sendAnswer(reply: FastifyReply, answer: SandboxAnswer, holdMs: number): Promise<void> {
  if (answer.kind === 'hang') {
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    await reply.status(answer.after.status).send(answer.after.body);
    return;
  }
  if (answer.headers) void reply.headers(answer.headers);
  await reply.status(answer.status).send(answer.body);
}
