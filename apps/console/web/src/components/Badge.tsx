import type { ReactNode } from 'react';
import { entitlementLabel, entitlementTone, humanize, stateLabel, stateTone, type Tone } from '../lib/format';

/** A coloured pill. */
export function Badge({ tone, children, title, testId }: { tone: Tone; children: ReactNode; title?: string; testId?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title} data-testid={testId}>
      {children}
    </span>
  );
}

/** A transaction state, coloured by what it means (settled green, mismatch red, recovering amber, ...). */
export function StateBadge({ state, testId }: { state: string; testId?: string }) {
  return (
    <Badge tone={stateTone(state)} title={state} testId={testId}>
      {stateLabel(state)}
    </Badge>
  );
}

/** An entitlement status (Unlocked, Locked, Held in review). */
export function EntitlementBadge({ status }: { status: string }) {
  return (
    <Badge tone={entitlementTone(status)} title={status}>
      {entitlementLabel(status)}
    </Badge>
  );
}

const OUTCOME_TONES: Record<string, Tone> = { succeeded: 'success', failed: 'danger' };

/** An admin action's outcome: succeeded, failed with its code, or "No outcome recorded" (still running, or the console stopped meanwhile). */
export function AdminOutcomeBadge({ outcome, errorCode }: { outcome: string | null; errorCode: string | null }) {
  if (outcome === null) return <Badge tone="neutral">No outcome recorded</Badge>;
  return (
    <Badge tone={OUTCOME_TONES[outcome] ?? 'neutral'} title={errorCode ?? undefined} testId="admin-outcome">
      {outcome === 'failed' && errorCode ? `Failed: ${errorCode}` : humanize(outcome)}
    </Badge>
  );
}
