import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/** Prefix (category) of the admin-action streams. */
export const ADMIN_STREAM_CATEGORY = 'admin';

/**
 * What an operator can do to the book from the console or its API (docs/console.md, "Audit"):
 * every one of them is recorded in the ledger with who did it.
 */
export const ADMIN_ACTIONS = [
  'transaction.reconcile',
  'delivery.resend',
  'endpoint.recover',
  'endpoint.enable',
  'endpoint.disable',
  'user.create',
  'user.update',
  /** A sensitive action proposed, approved or rejected (maker-checker, docs/approvals.md); the proposal is the target. */
  'proposal.create',
  'proposal.approve',
  'proposal.reject',
  /** An unmatched payment closed with a reason (docs/unmatched-payments.md). */
  'unmatched_payment.close',
  /** A reconciliation run against a provider's list started on demand (docs/reconciliation.md); the provider is the target. */
  'reconciliation.run_start',
  /** A reconciliation exception resolved with a reason (docs/reconciliation.md). */
  'reconciliation_exception.resolve',
  /** A State Mismatch closed as to be refunded (docs/state-machine.md, "Resolving a State Mismatch"); the transaction is the target. */
  'state_mismatch.refund_due',
] as const;

/** One of {@link ADMIN_ACTIONS}. */
export type AdminActionName = (typeof ADMIN_ACTIONS)[number];

/**
 * What an admin action acts on: a transaction (by reference), an entitlement event, an endpoint, a
 * console user (by email), a proposal, an unmatched payment (by reference), a payment provider (by
 * name: a reconciliation run against its books), a reconciliation exception (by id).
 */
export const ADMIN_TARGET_KINDS = [
  'transaction',
  'event',
  'endpoint',
  'user',
  'proposal',
  'unmatched_payment',
  'provider',
  'reconciliation_exception',
] as const;

/** One of {@link ADMIN_TARGET_KINDS}. */
export type AdminTargetKind = (typeof ADMIN_TARGET_KINDS)[number];

/** The ledger event types of an admin action: its request (before it runs) and its outcome (after). */
export const ADMIN_ACTION_EVENT_TYPES = { requested: 'AdminActionRequested', completed: 'AdminActionCompleted' } as const;

/**
 * Ledger stream of the admin actions on one target: `admin-<kind>-<id>`, the id percent-encoded.
 * One stream per target keeps a target's history one read away (a transaction's page shows who
 * reconciled it) and never contends with the projector's streams.
 */
export function adminActionStream(kind: AdminTargetKind, id: string): string {
  return `${ADMIN_STREAM_CATEGORY}-${kind}-${encodeURIComponent(id)}`;
}

/** The target of an admin-action stream, or `null` for any other stream. */
export function parseAdminActionStream(streamId: string): { kind: AdminTargetKind; id: string } | null {
  const match = /^admin-([a-z]+)-(.*)$/.exec(streamId);
  if (!match || !(ADMIN_TARGET_KINDS as readonly string[]).includes(match[1]!)) return null;
  return { kind: match[1] as AdminTargetKind, id: decodeURIComponent(match[2]!) };
}

const actor = z.object({ email: z.string().min(1), role: z.string().min(1) });
const target = z.object({ kind: z.enum(ADMIN_TARGET_KINDS), id: z.string().min(1) });

/**
 * The `data` of an `AdminActionRequested` ledger event, appended before the action runs, so no
 * action happens unrecorded: who (`actor`, as signed in), what (`action`, `parameters`: never a
 * secret or a password), on what (`target`), when (`requested_at`, ISO 8601 UTC).
 */
export const adminActionRequestedData = z.looseObject({
  action_id: z.uuid(),
  action: z.enum(ADMIN_ACTIONS),
  actor,
  target,
  parameters: z.record(z.string(), z.unknown()),
  requested_at: z.iso.datetime(),
});

/** See {@link adminActionRequestedData}. */
export type AdminActionRequestedData = z.infer<typeof adminActionRequestedData>;

/**
 * The `data` of an `AdminActionCompleted` ledger event, appended once the action returned or
 * failed: `outcome`, the failure's stable `error_code` (`null` on success), a short `result`
 * (counts, the new state; never a secret) and `completed_at` (ISO 8601 UTC).
 */
export const adminActionCompletedData = z.looseObject({
  action_id: z.uuid(),
  action: z.enum(ADMIN_ACTIONS),
  actor,
  target,
  outcome: z.enum(['succeeded', 'failed']),
  error_code: z.string().nullable(),
  result: z.record(z.string(), z.unknown()).nullable(),
  completed_at: z.iso.datetime(),
});

/** See {@link adminActionCompletedData}. */
export type AdminActionCompletedData = z.infer<typeof adminActionCompletedData>;

/** The ledger event of an action's request; its event id is the action id (appending it twice stores it once). */
export function adminActionRequestedEvent(data: AdminActionRequestedData): LedgerEventInput {
  return {
    eventId: data.action_id,
    type: ADMIN_ACTION_EVENT_TYPES.requested,
    data,
    metadata: { correlationId: data.action_id, causationId: data.action_id, actor: data.actor.email },
  };
}

/**
 * The ledger event of an action's outcome, caused by its request.
 *
 * @param eventId - a fresh UUID (the caller's, so a retried append stores it once).
 */
export function adminActionCompletedEvent(eventId: string, data: AdminActionCompletedData): LedgerEventInput {
  return {
    eventId,
    type: ADMIN_ACTION_EVENT_TYPES.completed,
    data,
    metadata: { correlationId: data.action_id, causationId: data.action_id, actor: data.actor.email },
  };
}

/**
 * The typed data of a stored admin-action event.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed admin-action event.
 */
export function adminActionOf(
  event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>,
): { type: 'AdminActionRequested'; data: AdminActionRequestedData } | { type: 'AdminActionCompleted'; data: AdminActionCompletedData } {
  if (event.type === ADMIN_ACTION_EVENT_TYPES.requested) {
    const parsed = adminActionRequestedData.safeParse(event.data);
    if (parsed.success) return { type: 'AdminActionRequested', data: parsed.data };
  } else if (event.type === ADMIN_ACTION_EVENT_TYPES.completed) {
    const parsed = adminActionCompletedData.safeParse(event.data);
    if (parsed.success) return { type: 'AdminActionCompleted', data: parsed.data };
  }
  throw new LedgerEventShapeError(event.eventId, event.position, 'an admin action');
}
