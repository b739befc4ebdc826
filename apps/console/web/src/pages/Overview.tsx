import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { ENTITLEMENT_STATUSES, STATES } from '../api/types';
import { ErrorPanel } from '../components/Feedback';
import { entitlementLabel, entitlementTone, stateLabel, stateTone, type Tone } from '../lib/format';
import { transactionsHref } from '../lib/query-string';
import { Link } from '../lib/router';

const count = new Intl.NumberFormat();

/** States and statuses in their fixed order, then any the API knows and this page does not. */
function ordered(known: readonly string[], counts: Partial<Record<string, number>>): string[] {
  return [...known, ...Object.keys(counts).filter((key) => !known.includes(key))];
}

function CountCard({ href, label, value, tone, hint }: { href: string; label: string; value: number; tone: Tone; hint?: string }) {
  return (
    <Link href={href} className={`card card-${tone}`}>
      <span className="card-label">{label}</span>
      <span className="card-value">{count.format(value)}</span>
      {hint && <span className="card-hint">{hint}</span>}
    </Link>
  );
}

/** The Overview: how many transactions are in each state and entitlement status; every card opens the filtered list. */
export function OverviewPage() {
  const overview = useQuery({ queryKey: ['overview'], queryFn: api.overview, refetchInterval: 15_000 });

  return (
    <section>
      <div className="page-head">
        <h1>Overview</h1>
        {overview.isFetching && !overview.isPending && <span className="muted small">Refreshing…</span>}
      </div>
      {overview.isPending && (
        <div className="cards">
          {STATES.map((state) => (
            <div key={state} className="card card-skeleton" aria-hidden="true" />
          ))}
        </div>
      )}
      {overview.isError && <ErrorPanel error={overview.error} onRetry={() => void overview.refetch()} />}
      {overview.data && (
        <>
          <h2 className="section-title">Needs attention</h2>
          <div className="cards">
            <CountCard
              href={transactionsHref({ state: 'STATE_MISMATCH' })}
              label="State mismatch"
              value={overview.data.stateMismatch}
              tone="danger"
              hint="A checklist point failed"
            />
            <CountCard
              href={transactionsHref({ state: 'MANUAL_REVIEW' })}
              label="Manual review"
              value={overview.data.manualReview}
              tone="review"
              hint="Automatic re-checks exhausted"
            />
            <CountCard
              href={transactionsHref({ entitlement: 'HELD_IN_REVIEW' })}
              label="Held in review"
              value={overview.data.heldInReview}
              tone="warning"
              hint="Payment still clearing"
            />
            <CountCard href={transactionsHref({})} label="All transactions" value={overview.data.total} tone="neutral" />
          </div>

          <h2 className="section-title">By state</h2>
          <div className="cards">
            {ordered(STATES, overview.data.states).map((state) => (
              <CountCard
                key={state}
                href={transactionsHref({ state })}
                label={stateLabel(state)}
                value={overview.data.states[state] ?? 0}
                tone={stateTone(state)}
              />
            ))}
          </div>

          <h2 className="section-title">By entitlement</h2>
          <div className="cards">
            {ordered(ENTITLEMENT_STATUSES, overview.data.entitlements).map((status) => (
              <CountCard
                key={status}
                href={transactionsHref({ entitlement: status })}
                label={entitlementLabel(status)}
                value={overview.data.entitlements[status] ?? 0}
                tone={entitlementTone(status)}
              />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
