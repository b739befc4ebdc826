import { Inject } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ProviderSimulator } from './provider.simulator.js';
import { json, type ProviderName, type SandboxAnswer } from './sandbox.core.js';
import { SANDBOX_CONFIG, SANDBOX_SIMULATORS, sendAnswer, type SandboxHttpSettings, type SimulatorLookup } from './sandbox.http.js';

/**
 * Shared plumbing of the provider-facing controllers (each declared beside its simulator): the
 * hold time of "time-out" answers, and the 503 of a provider that is not configured.
 */
export abstract class ProviderController {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxHttpSettings,
    @Inject(SANDBOX_SIMULATORS) private readonly simulators: SimulatorLookup,
  ) {}

  protected send(reply: FastifyReply, answer: SandboxAnswer): Promise<void> {
    return sendAnswer(reply, answer, this.config.timeoutHoldMs);
  }

  /** Sends what `call` answers with the provider's simulator, or its 503 when it is not configured. */
  protected answer<S extends ProviderSimulator>(reply: FastifyReply, provider: ProviderName, call: (simulator: S) => SandboxAnswer): Promise<void> {
    const simulator = this.simulators.simulator(provider) as S | null | undefined;
    return this.send(reply, simulator ? call(simulator) : json(503, this.simulators.notConfigured(provider)));
  }
}
