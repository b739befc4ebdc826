import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { ENTITLEMENT_STATUSES, STATES, type ConsumerGroupLag, type KafkaReading, type LedgerChains } from '../api/types';
import { EmptyState, ErrorPanel } from '../components/Feedback';
import { chainBreakLabel, entitlementLabel, entitlementTone, formatDateTime, stateLabel, stateTone, type Tone } from '../lib/format';
import { transactionsHref } from '../lib/query-string';
import { Link } from '../lib/router';
import { queueHref } from '../lib/routes';

const count = new Intl.NumberFormat();
/** Read again every 30 s, like the queues (the API caches Kafka's answers for 5 s). */
const REFRESH_MS = 30_000;
/** The deliveries page, filtered to the ones the dispatcher gave up. */
const FAILED_DELIVERIES_HREF = '/deliveries/dead-lettered';

/** States and statuses in their fixed order, then any the API knows and this page does not. */
function ordered(known: readonly string[], counts: Partial<Record<string, number>>): string[] {
  return [...known, ...Object.keys(counts).filter((key) => !known.includes(key))];
}

function CountCard({ href, label, value, tone, hint, testId }: { href: string; label: string; value: number; tone: Tone; hint?: string; testId?: string }) {
  return (
    <Link href={href} className={`card card-${tone}`} data-testid={testId}>
      <span className="card-label">{label}</span>
      <span className="card-value">{count.format(value)}</span>
      {hint && <span className="card-hint">{hint}</span>}
    </Link>
  );
}

/** A figure read from Kafka: its value, or why there is none (not configured, not answering). */
function KafkaCard({ label, reading, hint, testId }: { label: string; reading: KafkaReading<{ total: number }>; hint: string; testId: string }) {
  const tone: Tone = reading.status === 'ok' ? (reading.total > 0 ? 'danger' : 'success') : reading.status === 'unavailable' ? 'warning' : 'neutral';
  return (
    <div className={`card card-${tone}`} data-testid={testId} data-status={reading.status}>
      <span className="card-label">{label}</span>
      <span className="card-value">{reading.status === 'ok' ? count.format(reading.total) : '—'}</span>
      <span className="card-hint">
        {reading.status === 'ok' && hint}
        {reading.status === 'unavailable' && <span title={`${reading.code} at ${formatDateTime(reading.checkedAt)}`}>Kafka unavailable: {reading.detail}</span>}
        {reading.status === 'not_configured' && 'Kafka not configured (KAFKA_BROKERS)'}
      </span>
    </div>
  );
}

/** Where the verified ledger stands against the signed checkpoints: how many it matches and the latest, or why they were not checked. */
function SignedCheckpointsLine({ checkpoints }: { checkpoints: Extract<LedgerChains, { status: 'verified' }>['checkpoints'] }) {
  if (checkpoints.status === 'not_checked') {
    return (
      <div className="small" data-testid="ledger-checkpoints" data-status="not_checked">
        Checkpoints not checked: {checkpoints.reason}.
      </div>
    );
  }
  return (
    <div
      className="small"
      data-testid="ledger-checkpoints"
      data-status="checked"
      title={checkpoints.keysFrom ? `Keys trusted: ${checkpoints.keysFrom}` : undefined}
    >
      Checked against {count.format(checkpoints.checked)} signed checkpoint{checkpoints.checked === 1 ? '' : 's'}
      {checkpoints.latestSize !== null && checkpoints.latestSignedAt !== null && (
        <>
          ; the latest covers positions 1 to {count.format(checkpoints.latestSize)}, signed at {formatDateTime(checkpoints.latestSignedAt)}
        </>
      )}
      .
    </div>
  );
}

/** The ledger's hash-chain status: verified up to a position (and against the signed checkpoints), broken (red), not verified yet, or not verified by the console. */
function LedgerChainsNotice({ chains }: { chains: LedgerChains }) {
  switch (chains.status) {
    case 'verified':
      return (
        <div className="notice notice-success" data-testid="ledger-chains" data-status="verified">
          <strong>
            Ledger chains verified up to position {count.format(chains.position)} at {formatDateTime(chains.verifiedAt)}
          </strong>
          <div className="small">
            {count.format(chains.eventsChecked)} event{chains.eventsChecked === 1 ? '' : 's'} checked by the last verification that found new ones
            {chains.lastFullVerificationAt && <>; last verified from the first event at {formatDateTime(chains.lastFullVerificationAt)}</>}.
          </div>
          <SignedCheckpointsLine checkpoints={chains.checkpoints} />
        </div>
      );
    case 'broken':
      return (
        <div className="notice notice-danger" role="alert" data-testid="ledger-chains" data-status="broken">
          <strong>
            {chains.againstSignedCheckpoint ? 'Ledger disagrees with the signed checkpoint of size' : 'Chain broken at position'}{' '}
            {count.format(chains.position)}: {chainBreakLabel(chains.reason)}
          </strong>
          <div className="small">
            <span className="code">{chains.reason}</span>
            {chains.streamId && (
              <>
                {' '}
                in <span className="mono">{chains.streamId}</span> at revision {chains.revision}
              </>
            )}
            . Verified up to position {count.format(chains.lastVerifiedPosition)}; found at {formatDateTime(chains.checkedAt)}. It stays reported until a
            verification from the first event passes.
          </div>
        </div>
      );
    case 'pending':
      return (
        <div className="notice notice-info" data-testid="ledger-chains" data-status="pending">
          Ledger chains not verified yet: the console verifies them in the background, from where it stopped.
        </div>
      );
    case 'not_applicable':
      return (
        <div className="notice notice-info" data-testid="ledger-chains" data-status="not_applicable">
          {chains.detail}
        </div>
      );
  }
}

/** The workers' consumer lag: one row per consumer group, and the partitions on demand. */
function ConsumerLagTable({ reading }: { reading: KafkaReading<{ total: number; groups: ConsumerGroupLag[] }> }) {
  if (reading.status === 'not_configured') {
    return (
      <div className="table-wrap" data-testid="consumer-lag" data-status="not_configured">
        <EmptyState title="Kafka not configured">Set KAFKA_BROKERS (and SETTLE_TOPIC_PREFIX) for the console to show the workers’ lag.</EmptyState>
      </div>
    );
  }
  if (reading.status === 'unavailable') {
    return (
      <div className="notice notice-warning" data-testid="consumer-lag" data-status="unavailable">
        Consumer lag unavailable: {reading.detail} (tried at {formatDateTime(reading.checkedAt)}).
      </div>
    );
  }
  return (
    <div data-testid="consumer-lag" data-status="ok">
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th>Worker</th>
              <th>Consumer group</th>
              <th>Topics</th>
              <th>Group state</th>
              <th className="num">Members</th>
              <th className="num">Lag</th>
            </tr>
          </thead>
          <tbody>
            {reading.groups.map((group) => (
              <tr key={group.groupId} data-testid="consumer-lag-row" data-group={group.groupId}>
                <td>{group.worker}</td>
                <td className="mono">{group.groupId}</td>
                <td className="small">{group.topics.join(', ')}</td>
                <td>{group.state}</td>
                <td className="num">{group.members}</td>
                <td className="num" data-testid="consumer-lag-value">
                  {count.format(group.lag)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details className="partitions">
        <summary className="small">Per partition (read at {formatDateTime(reading.checkedAt)})</summary>
        <div className="table-wrap">
          <table className="table table-compact" data-testid="consumer-lag-partitions">
            <thead>
              <tr>
                <th>Consumer group</th>
                <th>Topic</th>
                <th className="num">Partition</th>
                <th className="num">Committed offset</th>
                <th className="num">End offset</th>
                <th className="num">Lag</th>
              </tr>
            </thead>
            <tbody>
              {reading.groups.flatMap((group) =>
                group.partitions.map((p) => (
                  <tr key={`${group.groupId}/${p.topic}/${p.partition}`}>
                    <td className="mono">{group.groupId}</td>
                    <td className="mono">{p.topic}</td>
                    <td className="num">{p.partition}</td>
                    <td className="num">{p.committedOffset === null ? <span className="muted">none</span> : count.format(p.committedOffset)}</td>
                    <td className="num">{count.format(p.endOffset)}</td>
                    <td className="num">{count.format(p.lag)}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      </details>
    </div>
  );
}

/**
 * The Overview: the ledger's hash-chain status, what needs attention (State Mismatch, the review
 * queues, dead-lettered deliveries and messages), the workers' consumer lag, and how many
 * transactions are in each state and entitlement status. Counts open their lists; read again
 * every 30 s.
 */
export function OverviewPage() {
  const overview = useQuery({ queryKey: ['overview'], queryFn: api.overview, refetchInterval: REFRESH_MS });
  const data = overview.data;

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
      {data && (
        <>
          <LedgerChainsNotice chains={data.ledgerChains} />

          <h2 className="section-title">Needs attention</h2>
          <div className="cards">
            <CountCard
              href={transactionsHref({ state: 'STATE_MISMATCH' })}
              label="State mismatch"
              value={data.stateMismatch}
              tone="danger"
              hint="A checklist point failed"
              testId="card-state-mismatch"
            />
            <CountCard
              href={queueHref('manual')}
              label="Manual review"
              value={data.manualReview}
              tone="review"
              hint="Automatic re-checks exhausted"
              testId="card-manual-review"
            />
            <CountCard
              href={queueHref('held')}
              label="Held in review"
              value={data.heldInReview}
              tone="warning"
              hint="Payment still clearing"
              testId="card-held-in-review"
            />
            <CountCard
              href={FAILED_DELIVERIES_HREF}
              label="Dead-lettered deliveries"
              value={data.deadLetteredDeliveries}
              tone={data.deadLetteredDeliveries > 0 ? 'danger' : 'success'}
              hint="Given up for an endpoint after every retry"
              testId="card-dead-lettered-deliveries"
            />
            <KafkaCard
              label="Dead-lettered messages"
              reading={data.deadLetteredMessages}
              hint={
                data.deadLetteredMessages.status === 'ok'
                  ? data.deadLetteredMessages.topics.map((t) => `${t.topic}: ${count.format(t.records)}`).join(' · ')
                  : ''
              }
              testId="card-dead-lettered-messages"
            />
            <CountCard href={transactionsHref({})} label="All transactions" value={data.total} tone="neutral" testId="card-total" />
          </div>

          <h2 className="section-title">Consumer lag</h2>
          <ConsumerLagTable reading={data.consumerLag} />

          <h2 className="section-title">By state</h2>
          <div className="cards">
            {ordered(STATES, data.states).map((state) => (
              <CountCard key={state} href={transactionsHref({ state })} label={stateLabel(state)} value={data.states[state] ?? 0} tone={stateTone(state)} />
            ))}
          </div>

          <h2 className="section-title">By entitlement</h2>
          <div className="cards">
            {ordered(ENTITLEMENT_STATUSES, data.entitlements).map((status) => (
              <CountCard
                key={status}
                href={transactionsHref({ entitlement: status })}
                label={entitlementLabel(status)}
                value={data.entitlements[status] ?? 0}
                tone={entitlementTone(status)}
              />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
