import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call } from '../api/client';
import { PROPOSALS_KEY } from '../api/proposals';
import type { Proposal, Role, TimelineEntry, TransactionDetail } from '../api/types';
import { formatDateTime, formatMoney } from '../lib/format';
import { Link } from '../lib/router';
import { proposalHref } from '../lib/routes';
import { Dialog } from './Dialog';
import { Spinner } from './Feedback';
import { ProblemNotice } from './ProblemNotice';

/** Who may propose accepting a State Mismatch (a second admin approves), and who may close one as refund due. */
const PROPOSERS: ReadonlySet<Role> = new Set(['operator', 'admin']);

/** The resolution's latest fact in the timeline (who decided, why), when there is one. */
function latestResolution(timeline: readonly TimelineEntry[]): TimelineEntry | undefined {
  return [...timeline].filter((e) => e.resolution).sort((a, b) => b.position - a.position)[0];
}

/** Where a resolved State Mismatch stands, with who decided it. */
function Resolved({ transaction, timeline }: { transaction: TransactionDetail; timeline: readonly TimelineEntry[] }) {
  const fact = latestResolution(timeline)?.resolution;
  if (transaction.resolution === 'accepted_as_paid') {
    const difference = fact?.differenceMinor ?? null;
    return (
      <div className="notice notice-success" role="status" data-testid="mismatch-resolution" data-resolution="accepted_as_paid">
        <strong>Accepted as paid.</strong> Proposed by {fact?.proposedBy ?? '—'}, approved by {fact?.approvedBy ?? '—'}
        {difference !== null && <> · difference accepted {formatMoney(difference, transaction.currency)}</>}. The entitlement is granted; the state stays State
        Mismatch, because the four checks did not pass.
        {fact?.note && <p className="small">“{fact.note}”</p>}
      </div>
    );
  }
  if (transaction.resolution === 'refund_due') {
    return (
      <div className="notice notice-warning" role="status" data-testid="mismatch-resolution" data-resolution="refund_due">
        <strong>Refund due.</strong> Closed by {fact?.closedBy ?? '—'}: it stays open until the provider shows the money returned, then closes by itself. Refund
        the payment from the provider’s dashboard; Settle refunds nothing.
      </div>
    );
  }
  return (
    <div className="notice notice-success" role="status" data-testid="mismatch-resolution" data-resolution="refunded">
      <strong>Refunded.</strong> The provider shows the money returned to the payer: the State Mismatch is closed.
    </div>
  );
}

/** "Accept as paid": a note, then a proposal a second admin approves on the Proposals page. */
function AcceptAsPaid({ reference, onDone }: { reference: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const propose = useMutation({
    mutationFn: () => call('post', '/api/v1/transactions/{reference}/accept-as-paid-proposals', { path: { reference }, body: { note: note.trim() } }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: PROPOSALS_KEY }),
  });
  if (propose.isSuccess) return <Proposed proposal={propose.data} onDone={onDone} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (note.trim() && !propose.isPending) propose.mutate();
  };
  return (
    <form onSubmit={submit} data-testid="accept-as-paid-form">
      <p className="muted small">
        The payment is recorded as settled by override, naming you and the approving admin and the difference accepted, and its entitlement is granted. A
        second, different admin approves it first.
      </p>
      <label className="field">
        Why it is accepted
        <textarea data-testid="accept-as-paid-note" value={note} maxLength={500} required onChange={(event) => setNote(event.target.value)} />
      </label>
      {propose.isError && <ProblemNotice error={propose.error} prefix="Not proposed" testId="accept-as-paid-problem" />}
      <div className="row-actions">
        <button type="submit" className="button button-primary" data-testid="accept-as-paid-submit" disabled={!note.trim() || propose.isPending}>
          {propose.isPending ? 'Proposing…' : 'Propose'}
        </button>
      </div>
    </form>
  );
}

/** The proposal made: its id, and where the second admin approves it. */
function Proposed({ proposal, onDone }: { proposal: Proposal; onDone: () => void }) {
  return (
    <div className="notice notice-success" role="status" data-testid="accept-as-paid-result" data-proposal-id={proposal.id}>
      <strong>Proposed.</strong> Proposal <span className="mono">{proposal.id}</span> waits for a second admin before {formatDateTime(proposal.expiresAt)}.
      <div className="notice-actions">
        <Link href={proposalHref(proposal.id)} className="button" data-testid="accept-as-paid-open-proposal">
          Open the proposal
        </Link>
        <button type="button" className="button button-ghost" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** "Close: refund due" (an admin): an optional note, then the request; the exception closes once the provider shows the refund. */
function CloseRefundDue({ reference, onDone }: { reference: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const close = useMutation({
    mutationFn: () =>
      call('post', '/api/v1/transactions/{reference}/close-refund-due', { path: { reference }, body: note.trim() ? { note: note.trim() } : {} }),
    onSuccess: onDone,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['transaction', reference] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!close.isPending) close.mutate();
  };
  return (
    <form onSubmit={submit} data-testid="refund-due-form">
      <p className="muted small">
        Refund the payment from the provider’s dashboard: Settle refunds nothing. The exception stays open until the provider shows the money returned.
      </p>
      <label className="field">
        Note (optional)
        <textarea data-testid="refund-due-note" value={note} maxLength={500} onChange={(event) => setNote(event.target.value)} />
      </label>
      {close.isError && <ProblemNotice error={close.error} prefix="Not closed" testId="refund-due-problem" />}
      <div className="row-actions">
        <button type="submit" className="button button-primary" data-testid="refund-due-submit" disabled={close.isPending}>
          {close.isPending ? <Spinner label="Closing" /> : null}
          {close.isPending ? 'Closing…' : 'Close: refund due'}
        </button>
      </div>
    </form>
  );
}

/**
 * A State Mismatch's resolution on its transaction page (docs/state-machine.md, "Resolving a State
 * Mismatch"): where it stands once resolved; before that, "Accept as paid" (operators and admins
 * propose, a second admin approves) and "Close: refund due" (admins).
 */
export function ResolveMismatch({
  transaction,
  timeline,
  role,
  following = false,
  onRequested = () => undefined,
}: {
  transaction: TransactionDetail;
  timeline: readonly TimelineEntry[];
  role: Role;
  /** A resolution was requested here and the page reads the transaction until the ledger shows it. */
  following?: boolean;
  /** Called once a "Close: refund due" was accepted (the page then follows the transaction). */
  onRequested?: () => void;
}) {
  const [open, setOpen] = useState<'accept' | 'refund' | null>(null);
  if (transaction.state !== 'STATE_MISMATCH') return null;
  return (
    <div className="panel" data-testid="mismatch-panel">
      <h2 className="panel-title">Resolve the State Mismatch</h2>
      {transaction.resolution ? (
        <Resolved transaction={transaction} timeline={timeline} />
      ) : following ? (
        <div className="notice notice-info" role="status" data-testid="mismatch-resolving">
          <Spinner label="Recording" /> Requested: waiting for the ledger to record it…
        </div>
      ) : (
        <>
          <p className="muted small">The money arrived, but not as registered: nothing is granted until someone decides.</p>
          <div className="row-actions">
            {PROPOSERS.has(role) && (
              <button type="button" className="button" data-testid="accept-as-paid" onClick={() => setOpen('accept')}>
                Accept as paid
              </button>
            )}
            {role === 'admin' && (
              <button type="button" className="button" data-testid="refund-due" onClick={() => setOpen('refund')}>
                Close: refund due
              </button>
            )}
          </div>
        </>
      )}
      {open === 'accept' && (
        <Dialog title="Accept as paid" onClose={() => setOpen(null)} testId="accept-as-paid-dialog">
          <AcceptAsPaid reference={transaction.reference} onDone={() => setOpen(null)} />
        </Dialog>
      )}
      {open === 'refund' && (
        <Dialog title="Close: refund due" onClose={() => setOpen(null)} testId="refund-due-dialog">
          <CloseRefundDue
            reference={transaction.reference}
            onDone={() => {
              setOpen(null);
              onRequested();
            }}
          />
        </Dialog>
      )}
    </div>
  );
}
