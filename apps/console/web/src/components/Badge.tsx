import type { ReactNode } from 'react';
import { entitlementLabel, entitlementTone, stateLabel, stateTone, type Tone } from '../lib/format';

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
