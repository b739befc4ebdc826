import type { FastifyReply } from 'fastify';
import type { SandboxAnswer } from './sandbox.core.js';

/** Injection token of the sandbox configuration. */
export const SANDBOX_CONFIG = Symbol('SandboxConfig');

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
  await reply.status(answer.status).send(answer.body);
}
