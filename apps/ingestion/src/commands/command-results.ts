import type { CheckoutCommandResultV1, CompleteCheckoutV1, RegisterCheckoutV1, VerifyCheckoutV1 } from '@settle/messaging';
import { deterministicId, type ProblemError } from '@settle/platform';

/** A command of `settle.checkout-commands.v1`, by its record name. */
export type CheckoutCommandType = 'RegisterCheckout' | 'CompleteCheckout' | 'VerifyCheckout';

/** The record types of the commands topic. */
export const CHECKOUT_COMMAND_TYPES: readonly CheckoutCommandType[] = ['RegisterCheckout', 'CompleteCheckout', 'VerifyCheckout'];

/** A decoded command's payload. */
export type CheckoutCommandPayload = RegisterCheckoutV1 | CompleteCheckoutV1 | VerifyCheckoutV1;

/** What a checkout stands at, for a result (`null` fields for a refusal). */
export interface CheckoutStanding {
  state: string;
  entitlementStatus: string;
}

/** The fields every result of a command shares: its ids and the command's. */
function base(
  command: CheckoutCommandType,
  payload: Pick<CheckoutCommandPayload, 'event_id' | 'correlation_id' | 'reference'>,
  phase: 'answer' | 'verified',
  now: Date,
): Pick<CheckoutCommandResultV1, 'event_id' | 'occurred_at' | 'correlation_id' | 'causation_id' | 'command' | 'reference'> {
  return {
    // One result per command and phase: a batch handled again after a crash answers with the same ids.
    event_id: deterministicId('CheckoutCommandResult', `${payload.event_id}|${phase}`),
    occurred_at: now.getTime(),
    correlation_id: payload.correlation_id,
    causation_id: payload.event_id,
    command,
    reference: payload.reference,
  };
}

/**
 * The command went through: `accepted` (it changed something: registered, completed, a
 * verification asked for) or `duplicate` (the same command again: nothing changed).
 *
 * @param verification - a `VerifyCheckout`'s request: `requested`, and whether it shares another's.
 */
export function acceptedResult(
  command: CheckoutCommandType,
  payload: CheckoutCommandPayload,
  outcome: 'accepted' | 'duplicate',
  standing: CheckoutStanding,
  now: Date,
  verification: { coalesced: boolean } | null = null,
): CheckoutCommandResultV1 {
  return {
    ...base(command, payload, 'answer', now),
    outcome,
    state: standing.state,
    entitlement_status: standing.entitlementStatus,
    problem: null,
    verification: verification ? { verification: 'requested', verdict: null, coalesced: verification.coalesced } : null,
  };
}

/**
 * The command was refused, with the problem details the HTTP API answers for the same input
 * (`problemOf` of `@settle/http`): its status, stable code, title, detail and field errors.
 */
export function refusedResult(
  command: CheckoutCommandType,
  payload: Pick<CheckoutCommandPayload, 'event_id' | 'correlation_id' | 'reference'>,
  problem: ProblemError,
  now: Date,
): CheckoutCommandResultV1 {
  return {
    ...base(command, payload, 'answer', now),
    outcome: 'refused',
    state: null,
    entitlement_status: null,
    problem: { status: problem.status, code: problem.code, title: problem.title, detail: problem.detail ?? null, errors: problem.errors ?? [] },
    verification: null,
  };
}

/**
 * A `VerifyCheckout`'s outcome (`POST /v1/checkouts/{reference}/verify`'s answer):
 * `completed` with the fresh verdict, `pending` when no answer came within the wait, or
 * `not_needed` for a checkout already terminal.
 */
export function verifiedResult(
  payload: Pick<CheckoutCommandPayload, 'event_id' | 'correlation_id' | 'reference'>,
  standing: CheckoutStanding,
  verification: { verification: 'completed' | 'pending' | 'not_needed'; verdict: string | null; coalesced: boolean },
  now: Date,
): CheckoutCommandResultV1 {
  return {
    ...base('VerifyCheckout', payload, 'verified', now),
    outcome: 'verified',
    state: standing.state,
    entitlement_status: standing.entitlementStatus,
    problem: null,
    verification,
  };
}
