import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { DeliveryItem, Endpoint, Role } from '../api/types';
import { Badge } from '../components/Badge';
import { DeliveriesError } from '../components/DeliveryFeedback';
import { ListFoot } from '../components/ListFoot';
import { TabBar, type Tab } from '../components/TabBar';
import { EmptyState } from '../components/Feedback';
import { ResendButton } from '../components/Resend';
import { canResend, deliveryStateLabel, deliveryTone, endpointHealth } from '../lib/deliveries';
import { formatAge, formatDateTime, humanize } from '../lib/format';
import { Link, navigate } from '../lib/router';
import { deliveriesHref, endpointHref, eventHref, type DeliveriesTab } from '../lib/routes';

const PAGE_SIZE = 50;
/** Deliveries move with the dispatcher's attempts: read again every 30 s. */
const REFRESH_MS = 30_000;

const TABS: ReadonlyArray<Tab<DeliveriesTab>> = [
  { tab: 'endpoints', label: 'Endpoints', hint: "The customer's endpoints that receive entitlement events, disabled ones first." },
  {
    tab: 'failed',
    label: 'Dead-lettered',
    hint: 'Deliveries whose retries ran out (about four days of attempts). Resend one once the endpoint is fixed, or recover an endpoint since a time.',
  },
];

/** Skeleton rows while a table loads. */
function SkeletonRows({ columns }: { columns: number }) {
  return (
    <>
      {Array.from({ length: 4 }, (_, index) => (
        <tr key={index} className="row-skeleton" aria-hidden="true">
          {Array.from({ length: columns }, (_, cell) => (
            <td key={cell}>
              <span className="skeleton" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** An endpoint's health: a badge, with why it is disabled or since when it fails on hover. */
export function EndpointHealthBadge({ endpoint }: { endpoint: Endpoint }) {
  const health = endpointHealth(endpoint);
  return (
    <Badge tone={health.tone} title={health.detail} testId="endpoint-health">
      {health.label}
    </Badge>
  );
}

function EndpointsTable() {
  const query = useQuery({ queryKey: ['endpoints'], queryFn: api.endpoints, refetchInterval: REFRESH_MS });
  if (query.isError) return <DeliveriesError error={query.error} onRetry={() => void query.refetch()} />;
  const rows = query.data?.items ?? [];
  const now = query.dataUpdatedAt;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="endpoints" aria-busy={query.isPending}>
        <thead>
          <tr>
            <th>URL</th>
            <th>Status</th>
            <th>Why</th>
            <th>Failing since</th>
            <th>Events</th>
          </tr>
        </thead>
        <tbody>
          {query.isPending && <SkeletonRows columns={5} />}
          {rows.map((endpoint) => (
            <tr
              key={endpoint.id}
              data-testid="endpoint-row"
              data-endpoint-id={endpoint.id}
              className="clickable"
              onClick={() => navigate(endpointHref(endpoint.id))}
            >
              <td>
                <div className="endpoint-cell">
                  <Link href={endpointHref(endpoint.id)} className="mono" onClick={(event) => event.stopPropagation()}>
                    {endpoint.url}
                  </Link>
                  {endpoint.description && <span className="muted small">{endpoint.description}</span>}
                </div>
              </td>
              <td>
                <EndpointHealthBadge endpoint={endpoint} />
              </td>
              <td className="small">{endpoint.enabled ? <span className="muted">—</span> : endpointHealth(endpoint).detail.replace(/^Disabled: /, '')}</td>
              <td title={endpoint.failingSince ? formatDateTime(endpoint.failingSince) : undefined}>
                {endpoint.failingSince ? <span className="small">{formatAge(endpoint.failingSince, now)}</span> : <span className="muted">—</span>}
              </td>
              <td className="small">{endpoint.eventKinds.map(humanize).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!query.isPending && rows.length === 0 && (
        <EmptyState title="No endpoint is registered">
          Entitlement events are recorded and reach an endpoint once one is registered with the dispatcher.
        </EmptyState>
      )}
    </div>
  );
}

/** Dead-lettered deliveries, newest first, by keyset pages; each links to its event's attempts and offers Resend to operators. */
function DeadLetteredTable({ role }: { role: Role }) {
  const query = useInfiniteQuery({
    queryKey: ['deliveries', 'failed'],
    queryFn: ({ pageParam }) => api.deliveries({ state: 'failed' }, pageParam, PAGE_SIZE),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: REFRESH_MS,
  });
  if (query.isError && !query.data) return <DeliveriesError error={query.error} onRetry={() => void query.refetch()} />;
  const rows = query.data?.pages.flatMap((page) => page.items) ?? [];
  const resend = canResend(role);
  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid="dead-lettered" aria-busy={query.isPending}>
          <thead>
            <tr>
              <th>Event</th>
              <th>Endpoint</th>
              <th>State</th>
              <th className="num">Attempts</th>
              <th>Last answer</th>
              <th>Recorded</th>
              {resend && <th aria-label="Actions" />}
            </tr>
          </thead>
          <tbody>
            {query.isPending && <SkeletonRows columns={resend ? 7 : 6} />}
            {rows.map((delivery) => (
              <DeadLetteredRow key={delivery.deliveryId} delivery={delivery} resend={resend} now={query.dataUpdatedAt} />
            ))}
          </tbody>
        </table>
        {!query.isPending && rows.length === 0 && (
          <EmptyState title="Nothing is dead-lettered">Every delivery reached its endpoint or is still being retried.</EmptyState>
        )}
      </div>
      <ListFoot query={query} shown={rows.length} end="the list" />
    </>
  );
}

function DeadLetteredRow({ delivery, resend, now }: { delivery: DeliveryItem; resend: boolean; now: number }) {
  return (
    <tr data-testid="dead-lettered-row" data-event-id={delivery.eventId} data-endpoint-id={delivery.endpointId}>
      <td>
        <div className="endpoint-cell">
          <Link href={eventHref(delivery.eventId)} className="mono" data-testid="event-attempts-link">
            {delivery.eventId}
          </Link>
          <span className="muted small">
            {humanize(delivery.event)} · {delivery.userId}
          </span>
        </div>
      </td>
      <td className="endpoint">
        {delivery.endpointUrl ? (
          <Link href={endpointHref(delivery.endpointId)} className="mono" title={delivery.endpointUrl}>
            {delivery.endpointUrl}
          </Link>
        ) : (
          <span className="muted small" title={delivery.endpointId}>
            Deleted endpoint
          </span>
        )}
      </td>
      <td>
        <Badge tone={deliveryTone(delivery.state)}>{deliveryStateLabel(delivery.state)}</Badge>
      </td>
      <td className="num">{delivery.attemptCount}</td>
      <td className="mono small" data-testid="last-answer">
        {[delivery.lastStatus, delivery.lastError].filter((part) => part !== null).join(' · ') || '—'}
      </td>
      <td title={formatDateTime(delivery.recordedAt)}>
        <span className="muted small">{formatAge(delivery.recordedAt, now)}</span>
      </td>
      {resend && (
        <td className="actions-cell">
          <ResendButton eventId={delivery.eventId} endpointId={delivery.endpointId} />
        </td>
      )}
    </tr>
  );
}

/** The Deliveries section: the customer endpoints and the dead-lettered deliveries, as two tabs. */
export function DeliveriesPage({ tab, role }: { tab: DeliveriesTab; role: Role }) {
  return (
    <section>
      <div className="page-head">
        <h1>Deliveries</h1>
      </div>
      <TabBar tabs={TABS} selected={tab} label="Deliveries" hrefOf={deliveriesHref} testIdPrefix="deliveries-tab" />
      <div role="tabpanel">{tab === 'endpoints' ? <EndpointsTable /> : <DeadLetteredTable role={role} />}</div>
    </section>
  );
}
