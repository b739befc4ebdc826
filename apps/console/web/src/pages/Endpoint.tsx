import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { api, ApiError } from '../api/client';
import type { DeliveryItem, Endpoint, Role } from '../api/types';
import { Badge } from '../components/Badge';
import { DeliveriesError } from '../components/DeliveryFeedback';
import { EmptyState, errorMessage, Spinner } from '../components/Feedback';
import {
  canResend,
  canToggleEndpoint,
  defaultRecoverSince,
  deliveryStateLabel,
  deliveryTone,
  endpointHealth,
  recoverSince,
  requeuedMessage,
  toLocalInput,
} from '../lib/deliveries';
import { formatAge, formatDateTime, humanize } from '../lib/format';
import { Link } from '../lib/router';
import { deliveriesHref, eventHref } from '../lib/routes';
import { EndpointHealthBadge } from './Deliveries';

function Field({ label, children, mono }: { label: string; children: ReactNode; mono?: boolean }) {
  return (
    <div className="field-view">
      <dt>{label}</dt>
      <dd className={mono ? 'mono' : undefined}>{children ?? '—'}</dd>
    </div>
  );
}

function Details({ endpoint }: { endpoint: Endpoint }) {
  const health = endpointHealth(endpoint);
  return (
    <dl className="fields" data-testid="endpoint-details">
      <Field label="Status">{health.detail}</Field>
      <Field label="Failing since">{endpoint.failingSince ? formatDateTime(endpoint.failingSince) : 'Not failing'}</Field>
      <Field label="Disabled at">{endpoint.disabledAt ? formatDateTime(endpoint.disabledAt) : null}</Field>
      <Field label="Events">{endpoint.eventKinds.map(humanize).join(', ')}</Field>
      <Field label="Description">{endpoint.description}</Field>
      <Field label="Registered">{formatDateTime(endpoint.createdAt)}</Field>
      <Field label="Secret rotation">
        {endpoint.previousSecretExpiresAt ? `Previous secret signs until ${formatDateTime(endpoint.previousSecretExpiresAt)}` : 'One secret signs'}
      </Field>
      <Field label="Id" mono>
        {endpoint.id}
      </Field>
    </dl>
  );
}

function RecentDeliveries({ deliveries, now }: { deliveries: DeliveryItem[]; now: number }) {
  if (deliveries.length === 0) {
    return (
      <div data-testid="recent-deliveries">
        <EmptyState title="No delivery yet">Entitlement events this endpoint is subscribed to show here once they are recorded.</EmptyState>
      </div>
    );
  }
  return (
    <div className="table-wrap">
      <table className="table table-compact" data-testid="recent-deliveries">
        <thead>
          <tr>
            <th>Event</th>
            <th>Kind</th>
            <th>State</th>
            <th className="num">Attempts</th>
            <th>Last answer</th>
            <th>Recorded</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.deliveryId} data-testid="delivery-row" data-event-id={delivery.eventId}>
              <td>
                <Link href={eventHref(delivery.eventId)} className="mono small">
                  {delivery.eventId}
                </Link>
              </td>
              <td>{humanize(delivery.event)}</td>
              <td>
                <Badge tone={deliveryTone(delivery.state)}>{deliveryStateLabel(delivery.state)}</Badge>
              </td>
              <td className="num">{delivery.attemptCount}</td>
              <td className="mono small">{[delivery.lastStatus, delivery.lastError].filter((part) => part !== null).join(' · ') || '—'}</td>
              <td title={formatDateTime(delivery.recordedAt)}>
                <span className="muted small">{formatAge(delivery.recordedAt, now)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Marks everything that shows this endpoint or its deliveries stale. */
function useInvalidateEndpoint(id: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([['endpoint', id], ['endpoints'], ['deliveries'], ['event-deliveries']].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}

/** "Recover since <time>": the endpoint's dead-lettered deliveries since then again, and the events it never had. */
function RecoverForm({ endpoint, now }: { endpoint: Endpoint; now: number }) {
  const [value, setValue] = useState(() => toLocalInput(defaultRecoverSince(endpoint, now)));
  const [invalid, setInvalid] = useState<string | null>(null);
  const invalidate = useInvalidateEndpoint(endpoint.id);
  const recover = useMutation({ mutationFn: (since: string) => api.recover(endpoint.id, since), onSuccess: () => invalidate() });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = recoverSince(value, Date.now());
    if (!parsed.ok) {
      setInvalid(parsed.message);
      return;
    }
    setInvalid(null);
    recover.mutate(parsed.since);
  };
  return (
    <form className="recover" onSubmit={submit} data-testid="recover-form">
      <label className="field">
        Recover since
        <input
          type="datetime-local"
          data-testid="recover-since"
          value={value}
          max={toLocalInput(now)}
          min={toLocalInput(now - 30 * 86_400_000)}
          onChange={(event) => setValue(event.target.value)}
          required
        />
      </label>
      <button type="submit" className="button button-primary" data-testid="recover" disabled={recover.isPending}>
        {recover.isPending ? <Spinner label="Recovering" /> : null}
        {recover.isPending ? 'Recovering…' : 'Recover'}
      </button>
      <p className="muted small recover-hint">
        Schedules again every delivery to this endpoint dead-lettered since then, and sends the events received since then that it never had. Your local time;
        at most 30 days back.
      </p>
      {invalid && (
        <div className="notice notice-warning" role="alert" data-testid="recover-result">
          {invalid}
        </div>
      )}
      {!invalid && recover.isSuccess && (
        <div className="notice notice-success" role="status" data-testid="recover-result">
          {requeuedMessage(recover.data.requeued, 'recover')}
        </div>
      )}
      {!invalid && recover.isError && (
        <div className="notice notice-danger" role="alert" data-testid="recover-result">
          Not recovered: {errorMessage(recover.error)}
        </div>
      )}
    </form>
  );
}

/** Enable (its backlog due at once) or Disable, for admins. */
function ToggleButton({ endpoint }: { endpoint: Endpoint }) {
  const invalidate = useInvalidateEndpoint(endpoint.id);
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api.setEndpointEnabled(endpoint.id, enabled),
    onSuccess: (updated) => {
      queryClient.setQueryData(['endpoint', endpoint.id], (old: { endpoint: Endpoint } | undefined) => (old ? { ...old, endpoint: updated } : old));
      return invalidate();
    },
  });
  const enable = !endpoint.enabled;
  return (
    <div className="page-actions">
      <button
        type="button"
        className={enable ? 'button button-primary' : 'button'}
        data-testid={enable ? 'endpoint-enable' : 'endpoint-disable'}
        disabled={toggle.isPending}
        onClick={() => {
          if (enable || window.confirm(`Disable ${endpoint.url}? Its deliveries wait until it is enabled again.`)) toggle.mutate(enable);
        }}
      >
        {toggle.isPending ? <Spinner label="Saving" /> : null}
        {enable ? 'Enable' : 'Disable'}
      </button>
      {toggle.isSuccess && (
        <span className="action-result small" role="status" data-testid="toggle-result">
          {toggle.data.enabled ? 'Enabled: its waiting deliveries are due now.' : 'Disabled: deliveries wait until it is enabled.'}
        </span>
      )}
      {toggle.isError && (
        <span className="action-result action-error small" role="alert" data-testid="toggle-result">
          Not changed: {errorMessage(toggle.error)}
        </span>
      )}
    </div>
  );
}

/** One customer endpoint: its health and details, its recent deliveries, "Recover since" (operators) and Enable/Disable (admins). */
export function EndpointPage({ id, role }: { id: string; role: Role }) {
  const view = useQuery({ queryKey: ['endpoint', id], queryFn: () => api.endpoint(id), refetchInterval: 30_000 });
  const back = (
    <Link href={deliveriesHref('endpoints')} className="back">
      ← Endpoints
    </Link>
  );
  if (view.isPending) {
    return (
      <div className="splash-inline">
        <Spinner label="Loading the endpoint" />
      </div>
    );
  }
  if (view.isError) {
    const notFound = view.error instanceof ApiError && view.error.status === 404;
    return (
      <section>
        {back}
        {notFound ? (
          <EmptyState title="No such endpoint">It was never registered, or it was deleted.</EmptyState>
        ) : (
          <DeliveriesError error={view.error} onRetry={() => void view.refetch()} />
        )}
      </section>
    );
  }
  const { endpoint, recentDeliveries } = view.data;
  return (
    <section>
      {back}
      <div className="page-head">
        <div className="title-block">
          <h1 className="mono endpoint-title">{endpoint.url}</h1>
          <div className="badges">
            <EndpointHealthBadge endpoint={endpoint} />
          </div>
        </div>
        {canToggleEndpoint(role) && <ToggleButton endpoint={endpoint} />}
      </div>

      <div className="panel">
        <h2 className="panel-title">Details</h2>
        <Details endpoint={endpoint} />
      </div>

      {canResend(role) && (
        <div className="panel">
          <h2 className="panel-title">Recover</h2>
          <RecoverForm key={endpoint.id} endpoint={endpoint} now={view.dataUpdatedAt} />
        </div>
      )}

      <div className="panel">
        <h2 className="panel-title">Recent deliveries</h2>
        <p className="muted small">The 20 newest deliveries to this endpoint; open an event for every attempt.</p>
        <RecentDeliveries deliveries={recentDeliveries} now={view.dataUpdatedAt} />
      </div>
    </section>
  );
}
