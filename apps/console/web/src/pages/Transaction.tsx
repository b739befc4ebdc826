import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { api, ApiError } from '../api/client';
import { CHECK_NAMES, type CheckResult, type EntitlementEvent, type Role, type TimelineEntry, type TransactionDetail, type Watch } from '../api/types';
import { AdminOutcomeBadge, Badge, EntitlementBadge, StateBadge } from '../components/Badge';
import { EmptyState, ErrorPanel, errorMessage, Spinner } from '../components/Feedback';
import { ResendButton } from '../components/Resend';
import { ResolveMismatch } from '../components/ResolveMismatch';
import { attemptTone, attemptTotal, canResend, deliveryStateLabel, deliveryTone, followingResend, RESEND_POLL_MS } from '../lib/deliveries';
import { adminActionLabel, checkLabel, formatDateTime, formatDuration, formatMoney, formatUntil, humanize, providerLabel, stateLabel } from '../lib/format';
import { ledgerEventCount, RECONCILE_POLL_MS, reconcileProgress, type TransactionMark } from '../lib/reconcile';
import { followingResolution } from '../lib/resolution';
import { Link } from '../lib/router';
import { eventHref } from '../lib/routes';

/** Roles that may ask for a reconciliation (docs/spec.md, section 1, trigger 4). */
const RECONCILERS: ReadonlySet<Role> = new Set(['operator', 'admin']);

/** A reconciliation asked for on this page, until it shows in the transaction or the wait ends. */
type Reconciling = { phase: 'waiting'; before: TransactionMark; startedAt: number } | { phase: 'done'; tone: 'success' | 'info' | 'warning'; message: string };

function Field({ label, children, mono }: { label: string; children: ReactNode; mono?: boolean }) {
  return (
    <div className="field-view">
      <dt>{label}</dt>
      <dd className={mono ? 'mono' : undefined}>{children ?? '—'}</dd>
    </div>
  );
}

/**
 * A check's expected or observed value: `—` when none; `erased` (the customer check of a person
 * whose data was erased, docs/privacy.md) in words, since nothing of it is kept to show.
 */
function CheckValue({ value }: { value: string | null | undefined }) {
  if (value === 'erased') {
    return (
      <dd className="muted" data-testid="check-erased" title="This person’s data was erased: nothing of it is kept to show">
        <em>erased</em>
      </dd>
    );
  }
  return <dd className="mono">{value || '—'}</dd>;
}

function Checks({ checks }: { checks: CheckResult[] | null }) {
  if (!checks || checks.length === 0) {
    return (
      <div data-testid="checks">
        <EmptyState title="No verification has decided yet">The four checks show here once the provider has answered.</EmptyState>
      </div>
    );
  }
  const order = (name: string) => {
    const index = (CHECK_NAMES as readonly string[]).indexOf(name);
    return index === -1 ? CHECK_NAMES.length : index;
  };
  const sorted = [...checks].sort((a, b) => order(a.check) - order(b.check));
  return (
    <div className="checks" data-testid="checks">
      {sorted.map((check) => (
        <div key={check.check} className={`check ${check.passed ? 'check-pass' : 'check-fail'}`} data-check={check.check}>
          <div className="check-head">
            <span className="check-icon" aria-hidden="true">
              {check.passed ? '✓' : '✕'}
            </span>
            <span className="check-name">{checkLabel(check.check)}</span>
            <span className="sr-only">{check.passed ? 'passed' : 'failed'}</span>
          </div>
          <dl className="check-values">
            <dt>Expected</dt>
            <CheckValue value={check.expected} />
            <dt>Observed</dt>
            <CheckValue value={check.observed} />
            {check.providerField && (
              <>
                <dt>From</dt>
                <dd className="small muted" data-testid="provider-field">
                  {check.providerField}
                </dd>
              </>
            )}
          </dl>
          {check.code && <div className="check-code mono">{check.code}</div>}
        </div>
      ))}
    </div>
  );
}

function Timeline({ entries }: { entries: TimelineEntry[] }) {
  if (entries.length === 0) {
    return (
      <div data-testid="timeline">
        <EmptyState title="Nothing in the ledger yet">An outcome is recorded once a verification decides.</EmptyState>
      </div>
    );
  }
  const newestFirst = [...entries].sort((a, b) => b.position - a.position);
  return (
    <ol className="timeline" data-testid="timeline">
      {newestFirst.map((entry) => (
        <li
          key={entry.position}
          className={entry.actor ? 'timeline-entry timeline-admin' : 'timeline-entry'}
          data-testid={entry.actor ? 'timeline-admin-action' : undefined}
        >
          <div className="timeline-dot" aria-hidden="true" />
          <div className="timeline-body">
            <div className="timeline-head">
              <strong>{entry.adminAction ? adminActionLabel(entry.adminAction.action) : entry.type}</strong>
              {entry.state && <StateBadge state={entry.state} />}
              {entry.adminAction && <AdminOutcomeBadge outcome={entry.adminAction.outcome} errorCode={entry.adminAction.errorCode} />}
              <span className="muted small">{formatDateTime(entry.recordedAt)}</span>
            </div>
            <div className="timeline-meta muted small">
              {entry.actor && (
                <span data-testid="timeline-actor">
                  By {entry.actor.email} ({entry.actor.role})
                </span>
              )}
              {entry.trigger && <span>Trigger: {humanize(entry.trigger)}</span>}
              {entry.verdict && <span>Verdict: {humanize(entry.verdict)}</span>}
              <span className="mono">{entry.actor ? `position ${entry.position}` : `revision ${entry.revision} · position ${entry.position}`}</span>
            </div>
            {entry.detail && <p className="timeline-detail">{entry.detail}</p>}
            {entry.movement && <Movement movement={entry.movement} />}
            {entry.resolution && <ResolutionFact resolution={entry.resolution} />}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** The sweeper's watch: the next automatic re-check and the re-checks so far, or "not watched". */
function Recovery({ watch, now }: { watch: Watch | null; now: number }) {
  if (!watch) {
    return (
      <div data-testid="watch">
        <EmptyState title="Not watched">The sweeper has no timer for this transaction (it has not seen its checkout registered).</EmptyState>
      </div>
    );
  }
  return (
    <dl className="fields" data-testid="watch">
      <Field label="Next check">
        {watch.nextCheckAt ? (
          <span title={formatDateTime(watch.nextCheckAt)}>
            {formatUntil(watch.nextCheckAt, now)} <span className="muted small">({formatDateTime(watch.nextCheckAt)})</span>
          </span>
        ) : (
          'None scheduled'
        )}
      </Field>
      <Field label="Checks so far">{String(watch.checksSoFar)}</Field>
      <Field label="Sweeper">{watch.active ? 'Re-checking automatically' : 'Stopped (settled, declined or handed to manual review)'}</Field>
    </dl>
  );
}

/**
 * The grants of this reference as the dispatcher recorded them: each event, its deliveries and
 * their attempts, a link to the event's full attempts, and Resend for operators.
 */
function EntitlementEvents({ events, resend, onResent }: { events: EntitlementEvent[]; resend: boolean; onResent: () => void }) {
  if (events.length === 0) {
    return (
      <div data-testid="entitlement-events">
        <EmptyState title="No entitlement events">A grant is sent to the customer's endpoints once the payment settles.</EmptyState>
      </div>
    );
  }
  return (
    <div className="events" data-testid="entitlement-events">
      {events.map((event) => (
        <div key={event.eventId} className="event" data-testid="entitlement-event" data-event-id={event.eventId}>
          <div className="event-head">
            <strong>{event.event}</strong>
            <span className="mono small muted">{event.eventId}</span>
            {event.expiresAt && <span className="small">Expires {formatDateTime(event.expiresAt)}</span>}
            <span className="event-actions">
              <Link href={eventHref(event.eventId)} className="small" data-testid="event-attempts-link">
                All attempts
              </Link>
              {resend && event.deliveries.length > 0 && <ResendButton eventId={event.eventId} onAccepted={onResent} />}
            </span>
          </div>
          {event.deliveries.length === 0 ? (
            <p className="muted small">No endpoint subscribed to this event.</p>
          ) : (
            <div className="table-wrap">
              <table className="table table-compact">
                <thead>
                  <tr>
                    <th>Endpoint</th>
                    <th>Delivery</th>
                    <th>Attempt</th>
                    <th>At</th>
                    <th>Outcome</th>
                    <th className="num">HTTP</th>
                    <th className="num">Duration</th>
                  </tr>
                </thead>
                <tbody>
                  {event.deliveries.flatMap((delivery) => {
                    const lead = (
                      <>
                        <td className="mono endpoint" title={delivery.endpointUrl}>
                          {delivery.endpointUrl}
                        </td>
                        <td>
                          <Badge tone={deliveryTone(delivery.status)}>{deliveryStateLabel(delivery.status)}</Badge>
                        </td>
                      </>
                    );
                    if (delivery.attempts.length === 0) {
                      return [
                        <tr key={delivery.endpointId}>
                          {lead}
                          <td colSpan={5} className="muted small">
                            No attempt yet
                          </td>
                        </tr>,
                      ];
                    }
                    return delivery.attempts.map((attempt, index) => (
                      <tr key={`${delivery.endpointId}-${index}`}>
                        {index === 0 ? (
                          lead
                        ) : (
                          <>
                            <td />
                            <td />
                          </>
                        )}
                        <td className="num">{index + 1}</td>
                        <td>{formatDateTime(attempt.at)}</td>
                        <td>
                          <Badge tone={attemptTone(attempt.outcome)}>{humanize(attempt.outcome)}</Badge>
                        </td>
                        <td className="num mono">{attempt.httpStatus ?? '—'}</td>
                        <td className="num">{formatDuration(attempt.durationMs)}</td>
                      </tr>
                    ));
                  })}
                </tbody>
              </table>
            </div>
          )}
        </div>
      ))}
    </div>
  );
}

/** Who resolved a State Mismatch and why, as the ledger recorded it. */
function ResolutionFact({ resolution }: { resolution: NonNullable<TimelineEntry['resolution']> }) {
  return (
    <dl className="check-values" data-testid="timeline-resolution">
      {resolution.proposedBy && (
        <>
          <dt>Decided by</dt>
          <dd>
            {resolution.proposedBy} (proposed), {resolution.approvedBy} (approved)
          </dd>
        </>
      )}
      {resolution.closedBy && (
        <>
          <dt>Closed by</dt>
          <dd>{resolution.closedBy}</dd>
        </>
      )}
      {resolution.differenceMinor !== null && (
        <>
          <dt>Difference accepted</dt>
          <dd className="mono">{resolution.differenceMinor} minor units</dd>
        </>
      )}
      {resolution.note && (
        <>
          <dt>Note</dt>
          <dd>{resolution.note}</dd>
        </>
      )}
      {resolution.returnedMinor !== null && (
        <>
          <dt>Returned to the payer</dt>
          <dd className="mono">{resolution.returnedMinor} minor units</dd>
        </>
      )}
    </dl>
  );
}

/** What the provider's own refund, reversal or dispute object said, as the ledger recorded it. */
function Movement({ movement }: { movement: NonNullable<TimelineEntry['movement']> }) {
  return (
    <dl className="check-values" data-testid="timeline-movement" data-kind={movement.kind}>
      <dt>{humanize(movement.kind)}</dt>
      <dd>
        <span className="mono">{movement.providerId}</span> {formatMoney(movement.amountMinor, movement.currency)}, provider status{' '}
        <span className="mono">{movement.providerStatus}</span>, created {formatDateTime(movement.createdAt)}
        {movement.reason && <span> · reason {movement.reason}</span>}
        {movement.outcome && <span> · {movement.outcome}</span>}
      </dd>
      {movement.moneyState ? (
        <>
          <dt>Money after</dt>
          <dd>
            {humanize(movement.moneyState)}
            {movement.returnedMinor !== null && movement.returnedMinor > 0 && <span>, {formatMoney(movement.returnedMinor, movement.currency)} returned</span>}
          </dd>
        </>
      ) : (
        <>
          <dt>Refused</dt>
          <dd className="mono">{movement.failedChecks.join(', ')}</dd>
        </>
      )}
    </dl>
  );
}

function Fields({ transaction }: { transaction: TransactionDetail }) {
  return (
    <dl className="fields">
      <Field label="Provider">{providerLabel(transaction.provider)}</Field>
      <Field label="Amount">{formatMoney(transaction.amountMinor, transaction.currency)}</Field>
      <Field label="Amount (minor units)" mono>
        {`${transaction.amountMinor} ${transaction.currency}`}
      </Field>
      <Field label="User id" mono>
        {transaction.userId}
      </Field>
      <Field label="Email">{transaction.email}</Field>
      <Field label="Entitlement" mono>
        {transaction.entitlement}
      </Field>
      <Field label="Access period" mono>
        {transaction.accessPeriod}
      </Field>
      <Field label="Last verdict">{transaction.lastVerdict ? humanize(transaction.lastVerdict) : null}</Field>
      <Field label="Last trigger">{transaction.lastTrigger ? humanize(transaction.lastTrigger) : null}</Field>
      <Field label="Updated">{formatDateTime(transaction.updatedAt)}</Field>
      <Field label="Money after settlement">
        <span data-testid="money-state">{humanize(transaction.moneyState)}</span>
        {transaction.returnedMinor > 0 && (
          <span className="muted" data-testid="money-returned">
            {' '}
            ({formatMoney(transaction.returnedMinor, transaction.currency)} returned to the payer)
          </span>
        )}
      </Field>
    </dl>
  );
}

/** One transaction: its fields, the four checks expected against observed, the sweeper's watch, its ledger timeline, its entitlement events' deliveries, and "Reconcile now". */
export function TransactionPage({ reference, role }: { reference: string; role: Role }) {
  const [reconciling, setReconciling] = useState<Reconciling | null>(null);
  // A resend asked for on this page, followed until its new attempt shows in the deliveries.
  const [resent, setResent] = useState<{ attemptsBefore: number; startedAt: number } | null>(null);
  // A State Mismatch resolution asked for on this page (when), followed until the ledger recorded it.
  const [resolving, setResolving] = useState<number | null>(null);
  const waiting = reconciling?.phase === 'waiting';
  const view = useQuery({
    queryKey: ['transaction', reference],
    queryFn: () => api.transaction(reference),
    refetchInterval: waiting ? RECONCILE_POLL_MS : resent ? RESEND_POLL_MS : resolving !== null ? RECONCILE_POLL_MS : false,
  });
  const resolution = view.data?.transaction.resolution;
  useEffect(() => {
    if (resolving === null) return;
    const check = () => {
      if (resolution || !followingResolution(resolving, Date.now())) setResolving(null);
    };
    check();
    const timer = window.setInterval(check, 1_000);
    return () => window.clearInterval(timer);
  }, [resolving, resolution]);
  const attempts = view.data ? view.data.entitlementEvents.reduce((sum, event) => sum + attemptTotal(event.deliveries), 0) : null;
  useEffect(() => {
    if (!resent || attempts === null) return;
    const check = () => {
      if (!followingResend(resent.attemptsBefore, attempts, resent.startedAt, Date.now())) setResent(null);
    };
    check();
    const timer = window.setInterval(check, 1_000);
    return () => window.clearInterval(timer);
  }, [resent, attempts]);

  const reconcile = useMutation({
    mutationFn: () => api.reconcile(reference),
    onSuccess: () => {
      if (!view.data) return;
      setReconciling({
        phase: 'waiting',
        before: { state: view.data.transaction.state, events: ledgerEventCount(view.data.timeline) },
        startedAt: Date.now(),
      });
    },
  });

  // While waiting: compare each fresh read with the state before, and stop after the wait.
  const currentState = view.data?.transaction.state;
  const currentEvents = view.data ? ledgerEventCount(view.data.timeline) : undefined;
  useEffect(() => {
    if (reconciling?.phase !== 'waiting' || currentState === undefined || currentEvents === undefined) return;
    const current = { state: currentState, events: currentEvents };
    const decide = () => {
      const progress = reconcileProgress(reconciling.before, current, reconciling.startedAt, Date.now());
      if (progress === 'changed')
        setReconciling({ phase: 'done', tone: 'success', message: `Reconciled: ${stateLabel(reconciling.before.state)} → ${stateLabel(current.state)}.` });
      else if (progress === 'recorded')
        setReconciling({ phase: 'done', tone: 'info', message: `Verified again: the state stays ${stateLabel(current.state)}.` });
      else if (progress === 'timed_out')
        setReconciling({
          phase: 'done',
          tone: 'warning',
          message: 'No change after 30 seconds. The provider may still be answering: check back shortly, or reconcile again.',
        });
    };
    decide();
    const timer = window.setInterval(decide, 1_000);
    return () => window.clearInterval(timer);
  }, [reconciling, currentState, currentEvents]);

  if (view.isPending) {
    return (
      <div className="splash-inline">
        <Spinner label="Loading the transaction" />
      </div>
    );
  }
  if (view.isError) {
    const notFound = view.error instanceof ApiError && view.error.status === 404;
    return (
      <section>
        <Link href="/transactions" className="back">
          ← Transactions
        </Link>
        {notFound ? (
          <EmptyState title={`No transaction ${reference}`}>The reference is not known to Settle.</EmptyState>
        ) : (
          <ErrorPanel error={view.error} onRetry={() => void view.refetch()} />
        )}
      </section>
    );
  }

  const { transaction, timeline, watch, entitlementEvents } = view.data;
  const canReconcile = RECONCILERS.has(role);
  return (
    <section>
      <Link href="/transactions" className="back">
        ← Transactions
      </Link>
      <div className="page-head">
        <div className="title-block">
          <h1 className="mono">{transaction.reference}</h1>
          <div className="badges">
            <StateBadge state={transaction.state} testId="state-badge" />
            <EntitlementBadge status={transaction.entitlementStatus} />
          </div>
        </div>
        {canReconcile && (
          <button
            type="button"
            className="button button-primary"
            data-testid="reconcile"
            onClick={() => reconcile.mutate()}
            disabled={reconcile.isPending || waiting}
          >
            {reconcile.isPending || waiting ? <Spinner label="Reconciling" /> : null}
            {reconcile.isPending ? 'Requesting…' : waiting ? 'Verifying with the provider…' : 'Reconcile now'}
          </button>
        )}
      </div>

      {reconcile.isError && (
        <div className="notice notice-danger" role="alert" data-testid="reconcile-result">
          Reconciliation was not started: {errorMessage(reconcile.error)}
        </div>
      )}
      {reconciling?.phase === 'waiting' && (
        <div className="notice notice-info" role="status" data-testid="reconcile-result">
          Reconciliation requested. Waiting for the provider's answer…
        </div>
      )}
      {reconciling?.phase === 'done' && (
        <div className={`notice notice-${reconciling.tone}`} role="status" data-testid="reconcile-result">
          {reconciling.message}
        </div>
      )}

      <div className="panel">
        <h2 className="panel-title">Details</h2>
        <Fields transaction={transaction} />
      </div>

      <ResolveMismatch transaction={transaction} timeline={timeline} role={role} following={resolving !== null} onRequested={() => setResolving(Date.now())} />

      <div className="panel">
        <h2 className="panel-title">Consensus checks</h2>
        <p className="muted small">All four must pass before the ledger records a settlement (expected from the checkout, observed from the provider).</p>
        <Checks checks={transaction.checks} />
      </div>

      <div className="panel">
        <h2 className="panel-title">Recovery</h2>
        <p className="muted small">The sweeper's automatic re-checks of this transaction with the provider.</p>
        <Recovery watch={watch} now={view.dataUpdatedAt} />
      </div>

      <div className="panel">
        <h2 className="panel-title">Ledger timeline</h2>
        <Timeline entries={timeline} />
      </div>

      <div className="panel">
        <h2 className="panel-title">Entitlement events</h2>
        <p className="muted small">The grants of this payment and their delivery to the customer's endpoints (oldest first).</p>
        <EntitlementEvents
          events={entitlementEvents}
          resend={canResend(role)}
          onResent={() => setResent({ attemptsBefore: attempts ?? 0, startedAt: Date.now() })}
        />
      </div>
    </section>
  );
}
