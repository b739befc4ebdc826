import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { api, call } from '../api/client';
import { usePendingProposals } from '../api/proposals';
import type { DisputeItem, HeldInReviewItem, ManualReviewItem, QueuePage, Role, StateMismatchItem, UnmatchedPayment } from '../api/types';
import { Badge, StateBadge } from '../components/Badge';
import { ListFoot } from '../components/ListFoot';
import { TabBar, type Tab } from '../components/TabBar';
import { EmptyState, ErrorPanel, errorMessage } from '../components/Feedback';
import { MatchToCheckout } from '../components/MatchToCheckout';
import { checkLabel, formatAge, formatDateTime, formatMoney, formatUntil, manualReviewReason, providerLabel } from '../lib/format';
import { Link, navigate } from '../lib/router';
import { queueHref, transactionHref, type QueueTab } from '../lib/routes';

const PAGE_SIZE = 50;
/** The queues move with the sweeper's ticks: read again every 30 s. */
const REFRESH_MS = 30_000;

const TABS: ReadonlyArray<Tab<QueueTab>> = [
  { tab: 'held', label: 'Held in review', hint: 'The provider says the payment is still clearing; the sweeper re-checks on a backoff schedule.' },
  { tab: 'manual', label: 'Manual review', hint: 'Automatic re-checks ran out: a person decides, for example with Reconcile now on the transaction.' },
  {
    tab: 'mismatch',
    label: 'State mismatch',
    hint: 'The provider reports a payment that differs from the checkout: each failed check, expected against observed, and the provider field it was read from. Newest first.',
  },
  {
    tab: 'disputes',
    label: 'Disputes',
    hint: 'Settled payments the payer disputed with their bank, still undecided: lost, the grant is revoked; won, nothing changes. Newest first.',
  },
  {
    tab: 'unmatched',
    label: 'Unmatched payments',
    hint: 'A provider confirmed these payments, but no checkout was registered for them: nothing was granted. Match one to its checkout (a second admin approves it on the Proposals page), or close it with a reason.',
  },
];

/** A page of a queue, read by cursor, oldest first. */
function useQueue<T>(tab: QueueTab, read: (cursor: string | null, limit: number) => Promise<QueuePage<T>>) {
  return useInfiniteQuery({
    queryKey: ['queue', tab],
    queryFn: ({ pageParam }) => read(pageParam, PAGE_SIZE),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: REFRESH_MS,
  });
}

/** The columns every queue starts with: reference (a link), provider, state, amount. */
function Lead({ row }: { row: { reference: string; provider: string; state: string; amountMinor: number; currency: string } }) {
  return (
    <>
      <td>
        <Link href={transactionHref(row.reference)} className="mono" onClick={(event) => event.stopPropagation()}>
          {row.reference}
        </Link>
      </td>
      <td>{providerLabel(row.provider)}</td>
      <td>
        <StateBadge state={row.state} />
      </td>
      <td className="num">{formatMoney(row.amountMinor, row.currency)}</td>
    </>
  );
}

/** A queue's table with its loading, empty, error and "Load more" states. */
function QueueTable<T extends { reference: string }>({
  testId,
  query,
  headers,
  row,
  empty,
  linked = true,
}: {
  testId: string;
  query: ReturnType<typeof useQueue<T>>;
  headers: string[];
  row: (item: T, now: number) => ReactNode;
  empty: { title: string; body: string };
  /** Whether a row opens its transaction (false for a queue whose rows have none). */
  linked?: boolean;
}) {
  const rows = query.data?.pages.flatMap((page) => page.items) ?? [];
  // Times are told from when the page was read, so a render never reads the clock.
  const now = query.dataUpdatedAt;
  if (query.isError && !query.data) return <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />;
  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid={testId} aria-busy={query.isPending}>
          <thead>
            <tr>
              {headers.map((header) => (
                <th key={header} className={header === 'Amount' ? 'num' : undefined}>
                  {header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {query.isPending &&
              Array.from({ length: 5 }, (_, index) => (
                <tr key={index} className="row-skeleton" aria-hidden="true">
                  {headers.map((header) => (
                    <td key={header}>
                      <span className="skeleton" />
                    </td>
                  ))}
                </tr>
              ))}
            {rows.map((item) => (
              <tr
                key={item.reference}
                data-testid="queue-row"
                data-reference={item.reference}
                className={linked ? 'clickable' : undefined}
                onClick={linked ? () => navigate(transactionHref(item.reference)) : undefined}
              >
                {row(item, now)}
              </tr>
            ))}
          </tbody>
        </table>
        {!query.isPending && rows.length === 0 && <EmptyState title={empty.title}>{empty.body}</EmptyState>}
      </div>
      <ListFoot query={query} shown={rows.length} end="the queue" />
    </>
  );
}

function HeldQueue() {
  const query = useQueue<HeldInReviewItem>('held', api.heldInReview);
  return (
    <QueueTable
      testId="queue-held"
      query={query}
      headers={['Reference', 'Provider', 'State', 'Amount', 'Next check', 'Checks so far', 'Held since']}
      empty={{ title: 'Nothing is held in review', body: 'Payments the provider reports as still clearing wait here for their re-checks.' }}
      row={(item, now) => (
        <>
          <Lead row={item} />
          <td title={item.nextCheckAt ? formatDateTime(item.nextCheckAt) : undefined} data-testid="next-check">
            {item.nextCheckAt ? formatUntil(item.nextCheckAt, now) : <span className="muted">not scheduled</span>}
          </td>
          <td className="num" data-testid="checks-so-far">
            {item.checksSoFar}
          </td>
          <td title={formatDateTime(item.updatedAt)}>
            <span className="muted small">{formatAge(item.updatedAt, now)}</span>
          </td>
        </>
      )}
    />
  );
}

function ManualQueue() {
  const query = useQueue<ManualReviewItem>('manual', api.manualReview);
  return (
    <QueueTable
      testId="queue-manual"
      query={query}
      headers={['Reference', 'Provider', 'State', 'Amount', 'Why', 'Since']}
      empty={{ title: 'Nothing waits for manual review', body: 'Transactions land here when the automatic re-checks run out.' }}
      row={(item, now) => (
        <>
          <Lead row={item} />
          <td className="reason" data-testid="reason">
            <span>{manualReviewReason(item)}</span>
            {item.lastEvent && <span className="muted small">{item.lastEvent.type}</span>}
          </td>
          <td title={formatDateTime(item.updatedAt)}>
            <span className="muted small">{formatAge(item.updatedAt, now)}</span>
          </td>
        </>
      )}
    />
  );
}

function MismatchQueue() {
  const query = useQueue<StateMismatchItem>('mismatch', api.stateMismatch);
  return (
    <QueueTable
      testId="queue-mismatch"
      query={query}
      headers={['Reference', 'Provider', 'State', 'Amount', 'Failed checks: expected / observed (provider field)', 'Since']}
      empty={{ title: 'No State Mismatch', body: 'A payment the provider reports differently from its checkout (amount, currency, customer) lands here.' }}
      row={(item, now) => (
        <>
          <Lead row={item} />
          <td>
            <ul className="mismatch-checks" data-testid="failed-checks">
              {item.failedChecks.map((c) => (
                <li key={c.check} data-testid="failed-check" data-check={c.check}>
                  <strong>{checkLabel(c.check)}</strong>{' '}
                  <span className="mono" data-testid="expected">
                    {c.expected}
                  </span>{' '}
                  <span className="muted">expected,</span>{' '}
                  <span className="mono" data-testid="observed">
                    {c.observed}
                  </span>{' '}
                  <span className="muted">observed</span>
                  {c.providerField && (
                    <span className="muted small" data-testid="provider-field">
                      {' '}
                      ({c.providerField})
                    </span>
                  )}
                </li>
              ))}
              {item.failedChecks.length === 0 && <li className="muted">No failed check recorded</li>}
            </ul>
          </td>
          <td title={formatDateTime(item.updatedAt)}>
            <span className="muted small">{formatAge(item.updatedAt, now)}</span>
          </td>
        </>
      )}
    />
  );
}

function DisputesQueue() {
  const query = useQueue<DisputeItem>('disputes', (cursor, limit) =>
    call('get', '/api/v1/queues/disputes', { query: { ...(cursor ? { cursor } : {}), limit } }),
  );
  return (
    <QueueTable
      testId="queue-disputes"
      query={query}
      headers={['Reference', 'Provider', 'State', 'Amount', 'Open disputes: amount, reason, opened', 'Refunded before']}
      empty={{ title: 'No open dispute', body: "A dispute the payer's bank opens on a settled payment lands here until the provider decides it." }}
      row={(item, now) => (
        <>
          <Lead row={item} />
          <td>
            <ul className="mismatch-checks" data-testid="open-disputes">
              {item.disputes.map((d) => (
                <li key={d.providerId} data-testid="open-dispute" data-dispute={d.providerId}>
                  <strong>{formatMoney(d.amountMinor, item.currency)}</strong> <span className="muted">{d.reason ?? 'no reason given'},</span>{' '}
                  <span title={formatDateTime(d.openedAt)}>{formatAge(d.openedAt, now)}</span> <span className="mono small">{d.providerId}</span>
                </li>
              ))}
            </ul>
          </td>
          <td className="num">{item.returnedMinor > 0 ? formatMoney(item.returnedMinor, item.currency) : <span className="muted">nothing</span>}</td>
        </>
      )}
    />
  );
}

/** The customer a provider confirmed: the e-mail, else the phone, else unverified. */
function Customer({ customer }: { customer: UnmatchedPayment['customer'] }) {
  const shown = customer.email ?? customer.phone;
  return shown ? <span>{shown}</span> : <span className="muted">unverified</span>;
}

/** Why an operator closes an unmatched payment without a checkout (docs/unmatched-payments.md), in the order offered. */
const CLOSE_REASONS = [
  { reason: 'refunded_outside_settle', label: 'Refunded outside Settle' },
  { reason: 'test_payment', label: 'Test payment' },
  { reason: 'not_ours', label: 'Not ours' },
] as const;

/** Roles that may close an unmatched payment or propose its match (operators and admins; the API checks again). */
const CLOSERS: ReadonlySet<Role> = new Set(['operator', 'admin']);

/**
 * "Close…" on an unmatched payment's row: a reason and an optional note, then
 * `POST /api/v1/unmatched-payments/{reference}/close`. The payment leaves the queue once the
 * ledger recorded the closing (the queue is read again).
 */
function CloseUnmatched({ reference }: { reference: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState<(typeof CLOSE_REASONS)[number]['reason']>('refunded_outside_settle');
  const [note, setNote] = useState('');
  const close = useMutation({
    mutationFn: () =>
      call('post', '/api/v1/unmatched-payments/{reference}/close', { path: { reference }, body: { reason, ...(note.trim() ? { note: note.trim() } : {}) } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['queue', 'unmatched'] }),
  });
  if (close.isSuccess) {
    return (
      <span className="muted small" role="status" data-testid="close-result">
        Closing…
      </span>
    );
  }
  if (!open) {
    return (
      <button type="button" className="button button-small" data-testid="close-unmatched" onClick={() => setOpen(true)}>
        Close…
      </button>
    );
  }
  return (
    <form
      className="row-actions"
      data-testid="close-unmatched-form"
      onSubmit={(event) => {
        event.preventDefault();
        close.mutate();
      }}
    >
      <label>
        <span className="sr-only">Reason</span>
        <select value={reason} onChange={(event) => setReason(event.target.value as typeof reason)} data-testid="close-reason">
          {CLOSE_REASONS.map((r) => (
            <option key={r.reason} value={r.reason}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span className="sr-only">Note</span>
        <input value={note} maxLength={500} placeholder="Note (optional)" onChange={(event) => setNote(event.target.value)} data-testid="close-note" />
      </label>
      <button type="submit" className="button button-small button-primary" disabled={close.isPending} data-testid="close-confirm">
        {close.isPending ? 'Closing…' : 'Close payment'}
      </button>
      <button type="button" className="button button-small" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {close.isError && (
        <span className="row-error" role="alert" data-testid="close-error">
          Not closed: {errorMessage(close.error)}
        </span>
      )}
    </form>
  );
}

/**
 * The pending match proposals by the reference of their unmatched payment, read when `enabled`
 * (the rows' actions need them; a failed read shows the rows' actions as if none were pending,
 * and the API refuses a second proposal anyway).
 */
function usePendingMatches(enabled: boolean): Map<string, { id: string }> {
  const proposals = usePendingProposals(enabled);
  const byReference = new Map<string, { id: string }>();
  for (const proposal of proposals.data?.items ?? []) {
    if (proposal.action === 'unmatched_payment.match' && proposal.target.kind === 'unmatched_payment') byReference.set(proposal.target.id, proposal);
  }
  return byReference;
}

function UnmatchedQueue({ role }: { role: Role }) {
  const query = useQueue<UnmatchedPayment>('unmatched', (cursor, limit) =>
    call('get', '/api/v1/queues/unmatched-payments', { query: { cursor: cursor ?? undefined, limit } }),
  );
  const canClose = CLOSERS.has(role);
  const pending = usePendingMatches(canClose);
  return (
    <QueueTable
      testId="queue-unmatched"
      query={query}
      linked={false}
      headers={['Reference', 'Provider', 'Amount', 'Customer', 'Age', ...(canClose ? ['Action'] : [])]}
      empty={{
        title: 'No unmatched payments',
        body: 'A payment a provider confirmed for a reference with no checkout lands here, once the provider was asked about it.',
      }}
      row={(item, now) => (
        <>
          <td className="mono">{item.reference}</td>
          <td>{providerLabel(item.provider)}</td>
          <td className="num" data-testid="amount">
            {item.termsVerified && item.amountMinor !== null && item.currency !== null ? (
              formatMoney(item.amountMinor, item.currency)
            ) : (
              <Badge tone="neutral" title="The provider's answer carries no verified amount" testId="amount-unverified">
                amount unverified
              </Badge>
            )}
          </td>
          <td data-testid="customer">
            <Customer customer={item.customer} />
          </td>
          <td title={formatDateTime(item.verifiedAt)}>
            <span className="muted small">{formatAge(item.verifiedAt, now)}</span>
          </td>
          {canClose && (
            <td>
              <div className="row-actions">
                <MatchToCheckout payment={item} pending={pending.get(item.reference)} />
                <CloseUnmatched reference={item.reference} />
              </div>
            </td>
          )}
        </>
      )}
    />
  );
}

/**
 * The review queues: held in review (next check, checks so far), manual review (why), State
 * Mismatch (the failed checks) and the unmatched payments (paid, no checkout: their rows open
 * nothing, there is no transaction); the rows of the others open the transaction.
 */
export function QueuesPage({ tab, role }: { tab: QueueTab; role: Role }) {
  return (
    <section>
      <div className="page-head">
        <h1>Queues</h1>
      </div>
      <TabBar tabs={TABS} selected={tab} label="Review queues" hrefOf={queueHref} testIdPrefix="queue-tab" />
      <div role="tabpanel">
        {tab === 'held' ? (
          <HeldQueue />
        ) : tab === 'manual' ? (
          <ManualQueue />
        ) : tab === 'mismatch' ? (
          <MismatchQueue />
        ) : tab === 'disputes' ? (
          <DisputesQueue />
        ) : (
          <UnmatchedQueue role={role} />
        )}
      </div>
    </section>
  );
}
