import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ApiError } from '../api/client';
import type { DeliveryWithAttempts, Role } from '../api/types';
import { Badge } from '../components/Badge';
import { DeliveriesError } from '../components/DeliveryFeedback';
import { EmptyState, Spinner } from '../components/Feedback';
import { ResendButton } from '../components/Resend';
import { attemptTone, attemptTotal, canResend, deliveryStateLabel, deliveryTone, followingResend, RESEND_POLL_MS } from '../lib/deliveries';
import { formatDateTime, formatDuration, humanize } from '../lib/format';
import { Link } from '../lib/router';
import { deliveriesHref, endpointHref } from '../lib/routes';

/** A resend this page asked for, followed until its attempt shows. */
interface Following {
  attemptsBefore: number;
  startedAt: number;
}

function Delivery({ delivery, eventId, resend, onResent }: { delivery: DeliveryWithAttempts; eventId: string; resend: boolean; onResent: () => void }) {
  return (
    <div className="panel" data-testid="event-delivery" data-endpoint-id={delivery.endpointId} data-state={delivery.state}>
      <div className="delivery-head">
        <div className="delivery-title">
          {delivery.endpointUrl ? (
            <Link href={endpointHref(delivery.endpointId)} className="mono">
              {delivery.endpointUrl}
            </Link>
          ) : (
            <span className="mono muted" title={delivery.endpointId}>
              Deleted endpoint {delivery.endpointId}
            </span>
          )}
          <Badge tone={deliveryTone(delivery.state)} testId="delivery-state">
            {deliveryStateLabel(delivery.state)}
          </Badge>
          <span className="muted small">
            {delivery.attemptCount} attempt{delivery.attemptCount === 1 ? '' : 's'}
            {delivery.nextAttemptAt ? ` · next ${formatDateTime(delivery.nextAttemptAt)}` : ''}
            {delivery.deliveredAt ? ` · delivered ${formatDateTime(delivery.deliveredAt)}` : ''}
          </span>
        </div>
        {resend && (
          <ResendButton eventId={eventId} endpointId={delivery.endpointId} label="Resend to this endpoint" testId="resend-delivery" onAccepted={onResent} />
        )}
      </div>
      {delivery.attempts.length === 0 ? (
        <p className="muted small">
          No attempt yet: it is due {delivery.nextAttemptAt ? formatDateTime(delivery.nextAttemptAt) : 'when the endpoint is enabled'}.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table table-compact" data-testid="attempts">
            <thead>
              <tr>
                <th className="num">#</th>
                <th>At</th>
                <th>Outcome</th>
                <th className="num">HTTP</th>
                <th className="num">Duration</th>
                <th>Error and answer</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt) => (
                <tr key={attempt.attempt} data-testid="attempt-row" data-outcome={attempt.outcome}>
                  <td className="num">{attempt.attempt}</td>
                  <td>{formatDateTime(attempt.at)}</td>
                  <td>
                    <Badge tone={attemptTone(attempt.outcome)}>{humanize(attempt.outcome)}</Badge>
                  </td>
                  <td className="num mono">{attempt.httpStatus ?? '—'}</td>
                  <td className="num">{formatDuration(attempt.durationMs)}</td>
                  <td>
                    <div className="excerpt-cell">
                      {attempt.error && <span className="mono small">{attempt.error}</span>}
                      {attempt.responseExcerpt && (
                        <code className="excerpt" title={attempt.responseExcerpt}>
                          {attempt.responseExcerpt}
                        </code>
                      )}
                      {!attempt.error && !attempt.responseExcerpt && <span className="muted">—</span>}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** An entitlement event's deliveries, one per endpoint, with every attempt (time, outcome, HTTP status, duration, error), and Resend for operators. */
export function EventDeliveriesPage({ eventId, role }: { eventId: string; role: Role }) {
  const [following, setFollowing] = useState<Following | null>(null);
  const view = useQuery({
    queryKey: ['event-deliveries', eventId],
    queryFn: () => api.eventDeliveries(eventId),
    refetchInterval: following ? RESEND_POLL_MS : 30_000,
  });
  const total = view.data ? attemptTotal(view.data.deliveries) : null;

  // Stop following once a new attempt shows or the wait ends.
  useEffect(() => {
    if (!following || total === null) return;
    const check = () => {
      if (!followingResend(following.attemptsBefore, total, following.startedAt, Date.now())) setFollowing(null);
    };
    check();
    const timer = window.setInterval(check, 1_000);
    return () => window.clearInterval(timer);
  }, [following, total]);

  const follow = () => setFollowing({ attemptsBefore: total ?? 0, startedAt: Date.now() });
  const back = (
    <Link href={deliveriesHref('failed')} className="back">
      ← Dead-lettered deliveries
    </Link>
  );
  if (view.isPending) {
    return (
      <div className="splash-inline">
        <Spinner label="Loading the deliveries" />
      </div>
    );
  }
  if (view.isError) {
    const notFound = view.error instanceof ApiError && view.error.status === 404;
    return (
      <section>
        {back}
        {notFound ? (
          <EmptyState title="No such entitlement event">The dispatcher never received an event with this id.</EmptyState>
        ) : (
          <DeliveriesError error={view.error} onRetry={() => void view.refetch()} />
        )}
      </section>
    );
  }
  const { deliveries } = view.data;
  const resend = canResend(role);
  const first = deliveries[0];
  return (
    <section>
      {back}
      <div className="page-head">
        <div className="title-block">
          <h1>Delivery attempts</h1>
          <div className="muted small">
            <span className="mono" data-testid="event-id">
              {eventId}
            </span>
            {first && ` · ${humanize(first.event)} · user ${first.userId}`}
          </div>
        </div>
        {resend && deliveries.length > 0 && (
          <div className="page-actions">
            <ResendButton eventId={eventId} label="Resend to every endpoint" onAccepted={follow} />
          </div>
        )}
      </div>
      {following && (
        <div className="notice notice-info" role="status" data-testid="resend-following">
          Waiting for the new attempt…
        </div>
      )}
      <div data-testid="event-deliveries">
        {deliveries.length === 0 ? (
          <EmptyState title="No delivery">No endpoint was subscribed to this event when it was recorded. Recover an endpoint since then to send it.</EmptyState>
        ) : (
          deliveries.map((delivery) => <Delivery key={delivery.deliveryId} delivery={delivery} eventId={eventId} resend={resend} onResent={follow} />)
        )}
      </div>
    </section>
  );
}
