import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call } from '../api/client';
import { PROPOSALS_KEY, useDecidedHere, usePendingProposals, useProposal } from '../api/proposals';
import type { Proposal, SessionUser, UnmatchedPayment } from '../api/types';
import { Badge } from '../components/Badge';
import { EmptyState, ErrorPanel, Spinner } from '../components/Feedback';
import { ProblemNotice } from '../components/ProblemNotice';
import { formatAge, formatDateTime, formatUntil } from '../lib/format';
import { compareTerms, findOpenUnmatched, proposedTerms, type TermLine } from '../lib/match';
import {
  approvalQuestion,
  ERASED,
  proposalActionLabel,
  proposalStatusAt,
  proposalStatusLabel,
  proposalStatusTone,
  refusalOf,
  subjectLabel,
  whyNotApprove,
} from '../lib/proposals';
import { ProposeErasure } from '../components/ProposeErasure';
import { Link } from '../lib/router';
import { PROPOSALS_PATH, proposalHref, queueHref, transactionHref } from '../lib/routes';

/**
 * What the provider confirmed for each pending match's payment, by reference, read from the
 * open unmatched payments queue (the API has no read of one; `findOpenUnmatched`).
 */
function useProviderAnswers(proposals: readonly Proposal[]) {
  const references = [...new Set(proposals.filter((p) => p.status === 'pending' && p.target.kind === 'unmatched_payment').map((p) => p.target.id))].sort();
  return useQuery({
    queryKey: ['queue', 'unmatched', 'lookup', references],
    queryFn: () =>
      findOpenUnmatched(references, (cursor) => call('get', '/api/v1/queues/unmatched-payments', { query: { cursor: cursor ?? undefined, limit: 100 } })),
    enabled: references.length > 0,
    refetchInterval: 30_000,
  });
}

/** The cell of a provider's value: the value, "none" when its answer has none, nothing for a term only the checkout knows. */
function ProviderValue({ line, payment }: { line: TermLine; payment: UnmatchedPayment | null | undefined }) {
  if (line.checkoutOnly) return <span className="muted small">not in the provider’s answer</span>;
  if (payment === undefined) return <span className="muted">…</span>;
  if (payment === null) return <span className="muted">—</span>;
  if (line.provider === null) return <span className="muted">{line.term === 'amount' ? 'unverified' : 'none'}</span>;
  return <span>{line.provider}</span>;
}

/** Whether a line agrees, as a badge: same, differs, or nothing to compare. */
function Agreement({ agrees }: { agrees: boolean | null }) {
  if (agrees === null) return null;
  return agrees ? (
    <Badge tone="success" testId="term-agrees">
      same
    </Badge>
  ) : (
    <Badge tone="danger" testId="term-differs">
      differs
    </Badge>
  );
}

/**
 * A match's terms beside the provider's answer, line by line (`compareTerms`), so the approver
 * compares them before approving; with a warning when they differ (the checks would fail).
 *
 * @param payment - the open payment; `null` when it is not open any more, `undefined` while it is read or not compared (a decided proposal).
 */
function TermsTable({ proposal, payment, compared }: { proposal: Proposal; payment: UnmatchedPayment | null | undefined; compared: boolean }) {
  const terms = proposedTerms(proposal.parameters);
  if (!terms) {
    return (
      <pre className="parameters mono small" data-testid="proposal-parameters">
        {JSON.stringify(proposal.parameters, null, 2)}
      </pre>
    );
  }
  const lines = compareTerms(terms, payment ?? null);
  const differs = compared && lines.some((line) => line.agrees === false);
  return (
    <>
      <div className="table-wrap">
        <table className="table table-compact terms-compare" data-testid="terms">
          <thead>
            <tr>
              <th>Term</th>
              <th>Proposed (the operator’s source)</th>
              {compared && <th>Provider’s answer</th>}
              {compared && <th aria-label="Agreement" />}
            </tr>
          </thead>
          <tbody>
            {lines.map((line) => (
              <tr
                key={line.term}
                data-testid="term-row"
                data-term={line.term}
                data-agrees={compared && line.agrees !== null ? String(line.agrees) : undefined}
                className={compared && line.agrees === false ? 'term-differs' : undefined}
              >
                <th scope="row">{line.label}</th>
                <td data-testid="term-proposed">{line.proposed ?? <span className="muted">—</span>}</td>
                {compared && (
                  <td data-testid="term-provider">
                    <ProviderValue line={line} payment={payment} />
                  </td>
                )}
                {compared && (
                  <td>
                    <Agreement agrees={compared && payment ? line.agrees : null} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {compared && payment === null && (
        <div className="notice notice-warning" role="status" data-testid="payment-not-open">
          The payment {proposal.target.id} is not among the open unmatched payments any more (matched or closed meanwhile): an approval will be refused.
        </div>
      )}
      {differs && (
        <div className="notice notice-warning" role="status" data-testid="terms-differ">
          These terms differ from what the provider confirmed: approved, the checkout ends in State Mismatch, and nothing is granted.
        </div>
      )}
    </>
  );
}

/** Reject (an admin) or withdraw (the proposer) a pending proposal, with a reason. */
function RefuseForm({ proposal, kind, onDecided }: { proposal: Proposal; kind: 'reject' | 'withdraw'; onDecided: (proposal: Proposal) => void }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const refuse = useMutation({
    mutationFn: () => call('post', '/api/v1/proposals/{id}/reject', { path: { id: proposal.id }, body: { reason: reason.trim() } }),
    onSuccess: onDecided,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: PROPOSALS_KEY }),
  });
  const verb = kind === 'reject' ? 'Reject' : 'Withdraw';
  if (!open) {
    return (
      <button type="button" className="button" data-testid="reject-open" onClick={() => setOpen(true)}>
        {verb}…
      </button>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim() && !refuse.isPending) refuse.mutate();
  };
  return (
    <form className="row-actions" onSubmit={submit} data-testid="reject-form">
      <label>
        <span className="sr-only">Reason</span>
        <input
          value={reason}
          maxLength={500}
          required
          placeholder="Why (required)"
          onChange={(event) => setReason(event.target.value)}
          data-testid="reject-reason"
        />
      </label>
      <button type="submit" className="button button-small button-primary" disabled={refuse.isPending || !reason.trim()} data-testid="reject-confirm">
        {refuse.isPending ? 'Saving…' : verb}
      </button>
      <button type="button" className="button button-small" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {refuse.isError && <ProblemNotice error={refuse.error} prefix={kind === 'reject' ? 'Not rejected' : 'Not withdrawn'} testId="reject-problem" />}
    </form>
  );
}

/**
 * A pending proposal's commands for `me`: "Approve" for an admin who did not propose it (after a
 * confirmation; the action runs with the terms as proposed), disabled with the reason for anyone
 * else, and reject or withdraw.
 */
function ProposalActions({ proposal, me, now, onDecided }: { proposal: Proposal; me: SessionUser; now: number; onDecided: (proposal: Proposal) => void }) {
  const queryClient = useQueryClient();
  const approve = useMutation({
    mutationFn: () => call('post', '/api/v1/proposals/{id}/approve', { path: { id: proposal.id } }),
    onSuccess: (answer) => onDecided(answer.proposal),
    onSettled: () =>
      Promise.all([PROPOSALS_KEY, ['queue', 'unmatched'], ['transaction', proposal.target.id]].map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
  const blocked = whyNotApprove(proposal, me, now);
  const refusal = refusalOf(proposal, me, now);
  const confirmAndApprove = () => {
    if (window.confirm(approvalQuestion(proposal))) {
      approve.mutate();
    }
  };
  return (
    <div className="proposal-actions">
      <div className="row-actions">
        <button
          type="button"
          className="button button-primary"
          data-testid="approve"
          disabled={blocked !== null || approve.isPending}
          title={blocked ?? undefined}
          onClick={confirmAndApprove}
        >
          {approve.isPending ? <Spinner label="Approving" /> : null}
          {approve.isPending ? 'Approving…' : 'Approve'}
        </button>
        {refusal && <RefuseForm proposal={proposal} kind={refusal} onDecided={onDecided} />}
      </div>
      {blocked && (
        <p className="muted small" data-testid="approve-blocked">
          {blocked}
        </p>
      )}
      {approve.isError && <ProblemNotice error={approve.error} prefix="Not approved" testId="approve-problem" />}
    </div>
  );
}

/**
 * What a proposal acts on: a transaction links to its page; an erasure's subject reads as the API
 * opened it ("customer carol@example.com"), or "erased" once done.
 */
function Target({ target }: { target: Proposal['target'] }) {
  if (target.kind === 'transaction') return <Link href={transactionHref(target.id)}>{target.id}</Link>;
  if (target.kind === 'subject') {
    return target.id === ERASED ? (
      <Badge tone="neutral" testId="subject-erased">
        erased
      </Badge>
    ) : (
      <span data-testid="subject">{subjectLabel(target.id)}</span>
    );
  }
  return <>{target.id}</>;
}

/** How a decided proposal ended: by whom, when, why; an approved match links to its checkout. */
function Decision({ proposal }: { proposal: Proposal }) {
  return (
    <div className="proposal-decision" data-testid="proposal-decision">
      {proposal.decidedBy && (
        <span>
          {proposal.status === 'rejected' && proposal.decidedBy.email.toLowerCase() === proposal.proposer.email.toLowerCase()
            ? 'Withdrawn'
            : proposalStatusLabel(proposal.status)}{' '}
          by <strong data-testid="decided-by">{proposal.decidedBy.email}</strong> ({proposal.decidedBy.role})
          {proposal.decidedAt ? `, ${formatDateTime(proposal.decidedAt)}` : ''}
        </span>
      )}
      {proposal.reason && <span className="muted"> · “{proposal.reason}”</span>}
      {proposal.status === 'approved' && proposal.target.kind === 'transaction' && (
        <p className="small">
          The ledger records the settlement by override and grants the entitlement:{' '}
          <Link href={transactionHref(proposal.target.id)} data-testid="proposal-transaction">
            the transaction
          </Link>
          .
        </p>
      )}
      {proposal.status === 'approved' && proposal.action === 'privacy.erase' && (
        <p className="small" data-testid="proposal-erased">
          The person’s keys are destroyed and their email and phone cleared; the ledger records the erasure (SubjectErased) naming both people. Their sealed
          values read “erased” everywhere from now on.
        </p>
      )}
      {proposal.status === 'approved' && proposal.target.kind === 'unmatched_payment' && (
        <p className="small">
          The checkout is registered under the payment’s reference, and the verifier checks it against the provider’s answer:{' '}
          <Link href={transactionHref(proposal.target.id)} data-testid="proposal-transaction">
            its four checks and state
          </Link>
          .
        </p>
      )}
    </div>
  );
}

/**
 * One proposal: what is proposed on what (the terms beside the provider's answer), who proposed it
 * and when, when it expires, its status, and the commands `me` may use, or how it ended.
 *
 * @param payment - for a pending match, its open payment (`null`: not open any more; `undefined`: being read).
 * @param now - epoch milliseconds the times are told from.
 */
export function ProposalCard({
  proposal,
  me,
  payment,
  now,
  onDecided,
}: {
  proposal: Proposal;
  me: SessionUser;
  payment: UnmatchedPayment | null | undefined;
  now: number;
  onDecided: (proposal: Proposal) => void;
}) {
  const status = proposalStatusAt(proposal, now);
  return (
    <article className="panel proposal" data-testid="proposal" data-proposal-id={proposal.id} data-status={status}>
      <header className="proposal-head">
        <div>
          <h2>
            <Link href={proposalHref(proposal.id)}>{proposalActionLabel(proposal.action)}</Link>{' '}
            <span className="mono" data-testid="proposal-target">
              <Target target={proposal.target} />
            </span>
          </h2>
          <p className="muted small">
            Proposed by <strong data-testid="proposer">{proposal.proposer.email}</strong> ({proposal.proposer.role}),{' '}
            <span title={formatDateTime(proposal.proposedAt)}>{formatAge(proposal.proposedAt, now)}</span>
            {status === 'pending' && (
              <>
                {' '}
                · expires <span title={formatDateTime(proposal.expiresAt)}>{formatUntil(proposal.expiresAt, now)}</span>
              </>
            )}
          </p>
        </div>
        <Badge tone={proposalStatusTone(status)} testId="proposal-status">
          {proposalStatusLabel(status)}
        </Badge>
      </header>
      <TermsTable proposal={proposal} payment={payment} compared={status === 'pending'} />
      {status === 'pending' ? <ProposalActions proposal={proposal} me={me} now={now} onDecided={onDecided} /> : <Decision proposal={proposal} />}
    </article>
  );
}

/**
 * The Proposals page (`/proposals`, every role): the proposals waiting for a second admin, oldest
 * first, each with its terms beside the provider's answer, and Approve, Reject or Withdraw as
 * `me` may; then those decided from this browser since sign-in, with how they ended (the API
 * lists pending proposals only; any proposal opens at its own address).
 */
export function ProposalsPage({ me }: { me: SessionUser }) {
  const pending = usePendingProposals();
  const { decided, remember } = useDecidedHere();
  const decidedIds = new Set(decided.map((p) => p.id));
  const waiting = (pending.data?.items ?? []).filter((p) => !decidedIds.has(p.id));
  const answers = useProviderAnswers(waiting);
  const now = pending.dataUpdatedAt;
  const paymentOf = (proposal: Proposal) => (answers.data ? (answers.data.get(proposal.target.id) ?? null) : undefined);
  return (
    <section>
      <div className="page-head">
        <h1>Proposals</h1>
        {pending.isFetching && !pending.isPending && <span className="muted small">Refreshing…</span>}
        <ProposeErasure role={me.role} />
      </div>
      <p className="muted page-hint">
        Money decisions take two people. An operator or admin proposes one (matching an unmatched payment from the{' '}
        <Link href={queueHref('unmatched')}>Unmatched payments</Link> queue, accepting a State Mismatch as paid from its transaction, or erasing a person’s data
        here); a second, different admin compares the terms with the provider’s answer and approves it, and only then does it run. Proposals expire if nobody
        approves them in time.
      </p>
      {pending.isError && !pending.data ? (
        <ErrorPanel error={pending.error} onRetry={() => void pending.refetch()} />
      ) : pending.isPending ? (
        <div className="splash-inline">
          <Spinner label="Loading the proposals" />
        </div>
      ) : waiting.length === 0 ? (
        <EmptyState title="Nothing waits for approval">
          A proposal shows here until a second admin approves it, it is rejected or withdrawn, or it expires.
        </EmptyState>
      ) : (
        <div data-testid="pending-proposals">
          {waiting.map((proposal) => (
            <ProposalCard key={proposal.id} proposal={proposal} me={me} payment={paymentOf(proposal)} now={now} onDecided={remember} />
          ))}
        </div>
      )}
      {decided.length > 0 && (
        <div data-testid="decided-proposals">
          <h2 className="section-title">Decided here</h2>
          {decided.map((proposal) => (
            <ProposalCard key={proposal.id} proposal={proposal} me={me} payment={undefined} now={now} onDecided={remember} />
          ))}
        </div>
      )}
      <p className="muted small list-note">
        Only pending proposals are listed, and those decided from this browser. Any proposal, decided or expired, opens at its own address; admins find every
        proposal’s commands and who gave them in the <Link href="/audit?targetKind=proposal">audit trail</Link>.
      </p>
    </section>
  );
}

/** One proposal at its own address (`/proposals/<id>`), as it stands now, whatever its status. */
export function ProposalPage({ id, me }: { id: string; me: SessionUser }) {
  const proposal = useProposal(id);
  const { remember } = useDecidedHere();
  const answers = useProviderAnswers(proposal.data ? [proposal.data] : []);
  const payment = proposal.data && answers.data ? (answers.data.get(proposal.data.target.id) ?? null) : undefined;
  return (
    <section>
      <Link href={PROPOSALS_PATH} className="back">
        ← Proposals
      </Link>
      <div className="page-head">
        <h1>Proposal</h1>
      </div>
      {proposal.isError && !proposal.data ? (
        <ErrorPanel error={proposal.error} title="Could not load this proposal" onRetry={() => void proposal.refetch()} />
      ) : !proposal.data ? (
        <div className="splash-inline">
          <Spinner label="Loading the proposal" />
        </div>
      ) : (
        <ProposalCard proposal={proposal.data} me={me} payment={payment} now={proposal.dataUpdatedAt} onDecided={remember} />
      )}
    </section>
  );
}
