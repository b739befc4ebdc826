// Pure helpers of the Deliveries pages: who may do what, how an endpoint's health and a delivery's
// state read, the "Recover since" time, and following a resend until its attempt shows.

import { ApiError } from '../api/client';
import type { Endpoint, Role } from '../api/types';
import type { Tone } from './format';

/** Roles that may resend an event and recover an endpoint (docs/console.md, "Security"). */
const OPERATORS: ReadonlySet<Role> = new Set(['operator', 'admin']);

/** Whether a role may resend an entitlement event or recover an endpoint since a time: operators and admins. */
export function canResend(role: Role): boolean {
  return OPERATORS.has(role);
}

/** Whether a role may enable or disable an endpoint: admins only (it changes where money-related events go). */
export function canToggleEndpoint(role: Role): boolean {
  return role === 'admin';
}

/** Whether an API error says the console has no dispatcher configured (503 `CONSOLE.DELIVERY_NOT_CONFIGURED`). */
export function isDeliveryNotConfigured(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'CONSOLE.DELIVERY_NOT_CONFIGURED';
}

const DELIVERY_TONES: Record<string, Tone> = { delivered: 'success', pending: 'info', failed: 'danger', cancelled: 'neutral' };
const ATTEMPT_TONES: Record<string, Tone> = { delivered: 'success', throttled: 'warning', failed: 'danger', gone: 'neutral' };

/** The badge colour of a delivery state: delivered green, pending blue, failed (dead-lettered) red. */
export function deliveryTone(state: string): Tone {
  return DELIVERY_TONES[state] ?? 'neutral';
}

/** The badge colour of an attempt's outcome: delivered green, throttled amber, failed red, gone grey. */
export function attemptTone(outcome: string): Tone {
  return ATTEMPT_TONES[outcome] ?? 'neutral';
}

/** A delivery state as people read it: `failed` is "Dead-lettered" (its retries are exhausted). */
export function deliveryStateLabel(state: string): string {
  switch (state) {
    case 'failed':
      return 'Dead-lettered';
    case 'pending':
      return 'Pending';
    case 'delivered':
      return 'Delivered';
    case 'cancelled':
      return 'Cancelled';
    default:
      return state;
  }
}

const DISABLED_REASONS: Record<string, string> = {
  admin: 'Disabled by an admin',
  gone: 'Disabled: it answered 410 Gone',
  failing: 'Disabled: failing continuously',
};

/**
 * An endpoint's health in one badge: `Disabled` with why (an admin, a 410 Gone, failing
 * continuously for days), `Failing` while its attempts fail, else `Enabled`.
 */
export function endpointHealth(endpoint: Pick<Endpoint, 'enabled' | 'disabledReason' | 'failingSince'>): { label: string; tone: Tone; detail: string } {
  if (!endpoint.enabled) {
    const reason = endpoint.disabledReason ?? '';
    return { label: 'Disabled', tone: reason === 'admin' ? 'neutral' : 'danger', detail: DISABLED_REASONS[reason] ?? 'Disabled' };
  }
  if (endpoint.failingSince) return { label: 'Failing', tone: 'warning', detail: 'Its recent attempts failed; retries continue' };
  return { label: 'Enabled', tone: 'success', detail: 'Receiving deliveries' };
}

/** How far back "Recover since" may reach: 30 days, milliseconds (the API's limit, docs/console.md, "Decisions"). */
export const RECOVER_MAX_AGE_MS = 30 * 86_400_000;

/**
 * A `datetime-local` input's value (`2026-11-25T09:30`, the browser's local time) for a time.
 *
 * @param at - epoch milliseconds.
 */
export function toLocalInput(at: number): string {
  const date = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * The time "Recover since" starts with: the start of the endpoint's failing run when it has one
 * (what an outage left behind), else 24 hours ago; never older than 30 days.
 *
 * @param now - epoch milliseconds.
 * @returns epoch milliseconds, whole minutes (the input's precision).
 */
export function defaultRecoverSince(endpoint: Pick<Endpoint, 'failingSince'>, now: number): number {
  const failing = endpoint.failingSince ? Date.parse(endpoint.failingSince) : Number.NaN;
  const start = Number.isNaN(failing) ? now - 86_400_000 : failing;
  const floor = Math.ceil((now - RECOVER_MAX_AGE_MS) / 60_000) * 60_000;
  return Math.max(floor, Math.floor(start / 60_000) * 60_000);
}

/**
 * Reads the "Recover since" input (the browser's local time) into the ISO time the API takes,
 * refusing what the API would: an empty or unreadable time, one in the future, one more than 30
 * days ago.
 *
 * @param now - epoch milliseconds.
 */
export function recoverSince(input: string, now: number): { ok: true; since: string } | { ok: false; message: string } {
  const at = input ? new Date(input).getTime() : Number.NaN;
  if (Number.isNaN(at)) return { ok: false, message: 'Choose the time to recover from.' };
  if (at > now) return { ok: false, message: 'The time is in the future.' };
  if (now - at > RECOVER_MAX_AGE_MS) return { ok: false, message: 'The time is more than 30 days ago: recover a shorter span.' };
  return { ok: true, since: new Date(at).toISOString() };
}

/** What a resend or a recovery put back in the schedule, in words. */
export function requeuedMessage(requeued: number, what: 'resend' | 'recover'): string {
  if (requeued === 0) return what === 'resend' ? 'Nothing was resent: no endpoint had this event.' : 'Nothing to recover since that time.';
  const deliveries = `${requeued} deliver${requeued === 1 ? 'y' : 'ies'}`;
  return what === 'resend' ? `Resent: ${deliveries} scheduled now.` : `Recovering: ${deliveries} scheduled now.`;
}

/** How long a page follows a resend until its new attempt shows: 30 s. */
export const RESEND_FOLLOW_MS = 30_000;

/** How often it reads the deliveries again meanwhile: every second. */
export const RESEND_POLL_MS = 1_000;

/**
 * Whether a page still follows a resend: `true` until the attempts counted over the event's
 * deliveries grew past what they were when it was asked for, or {@link RESEND_FOLLOW_MS} passed.
 *
 * @param startedAt - epoch milliseconds when the resend was accepted.
 * @param now - epoch milliseconds.
 */
export function followingResend(attemptsBefore: number, attemptsNow: number, startedAt: number, now: number, followMs = RESEND_FOLLOW_MS): boolean {
  return attemptsNow <= attemptsBefore && now - startedAt < followMs;
}

/** Every attempt over an event's deliveries. */
export function attemptTotal(deliveries: ReadonlyArray<{ attempts: readonly unknown[] }>): number {
  return deliveries.reduce((sum, delivery) => sum + delivery.attempts.length, 0);
}
