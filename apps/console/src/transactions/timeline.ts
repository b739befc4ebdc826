import { adminActionOf, type AdminActionCompletedData, type AdminActionRequestedData, type RecordedLedgerEvent } from '@settle/ledger';
import type { TimelineEntry } from './views.js';

/** The timeline's label of each admin action (`GET /api/v1/transactions/:reference`, docs/console.md, "Audit"). */
const ADMIN_ACTION_LABELS: Record<string, string> = {
  'transaction.reconcile': 'Manual reconciliation',
  'delivery.resend': 'Resend of an entitlement event',
  'endpoint.recover': 'Recovery of an endpoint',
  'endpoint.enable': 'Re-enabling of an endpoint',
  'endpoint.disable': 'Disabling of an endpoint',
  'user.create': 'Creation of a console user',
  'user.update': 'Change of a console user',
};

/**
 * The timeline entries of the admin actions in one admin stream (`admin-transaction-<reference>`):
 * one per request, at its position, with its outcome when recorded, e.g. detail
 * "Manual reconciliation requested by ops@example.com (operator)". Events that are not
 * well-formed admin actions are left out.
 */
export function adminTimelineEntries(events: readonly RecordedLedgerEvent[]): TimelineEntry[] {
  const outcomes = new Map<string, AdminActionCompletedData>();
  const requests: Array<{ event: RecordedLedgerEvent; data: AdminActionRequestedData }> = [];
  for (const event of events) {
    let parsed: ReturnType<typeof adminActionOf>;
    try {
      parsed = adminActionOf(event);
    } catch {
      continue;
    }
    if (parsed.type === 'AdminActionCompleted') outcomes.set(parsed.data.action_id, parsed.data);
    else requests.push({ event, data: parsed.data });
  }
  return requests.map(({ event, data }): TimelineEntry => {
    const completed = outcomes.get(data.action_id);
    return {
      position: event.position,
      revision: event.revision,
      type: event.type,
      recordedAt: event.recordedAt.toISOString(),
      trigger: null,
      verdict: null,
      state: null,
      detail: `${ADMIN_ACTION_LABELS[data.action] ?? data.action} requested by ${data.actor.email} (${data.actor.role})`,
      actor: { email: data.actor.email, role: data.actor.role },
      adminAction: {
        action: data.action,
        outcome: completed?.outcome ?? null,
        errorCode: completed?.error_code ?? null,
        completedAt: completed?.completed_at ?? null,
      },
    };
  });
}
