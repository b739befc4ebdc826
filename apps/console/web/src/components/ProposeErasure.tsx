import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call } from '../api/client';
import { PROPOSALS_KEY } from '../api/proposals';
import type { Proposal, Role } from '../api/types';
import { formatDateTime } from '../lib/format';
import { erasureRequestOf, type ErasureForm, type SubjectKind } from '../lib/privacy';
import { subjectLabel } from '../lib/proposals';
import { Link } from '../lib/router';
import { proposalHref } from '../lib/routes';
import { Dialog } from './Dialog';
import { ProblemNotice } from './ProblemNotice';

/** Who may propose an erasure (a second admin approves), as the API allows. */
const PROPOSERS: ReadonlySet<Role> = new Set(['operator', 'admin']);

/** The erasure form: whom (a user id, or a customer's email or phone) and why, then a proposal. */
function ErasureFormView({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<ErasureForm>({ kind: 'customer', id: '', reason: '' });
  const [shown, setShown] = useState(false);
  const checked = erasureRequestOf(form);
  const propose = useMutation({
    mutationFn: () => call('post', '/api/v1/privacy/erasures', { body: checked.request! }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: PROPOSALS_KEY }),
  });
  if (propose.isSuccess) return <Proposed proposal={propose.data} onDone={onDone} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShown(true);
    if (checked.request && !propose.isPending) propose.mutate();
  };
  const problem = (field: 'id' | 'reason') => (shown ? checked.problems?.[field] : undefined);
  return (
    <form onSubmit={submit} noValidate data-testid="erasure-form">
      <p className="muted small">
        Settle destroys the person’s keys, so every sealed copy of their email and phone reads “erased”, clears the plaintext copies and records the erasure in
        the ledger, naming you and the approving admin. What stays, and why, is listed in docs/privacy.md. A second, different admin approves it first.
      </p>
      <fieldset className="field">
        <legend>Whose data</legend>
        {(['customer', 'user'] as const satisfies readonly SubjectKind[]).map((kind) => (
          <label key={kind} className="radio">
            <input
              type="radio"
              name="erasure-kind"
              value={kind}
              checked={form.kind === kind}
              data-testid={`erasure-kind-${kind}`}
              onChange={() => setForm({ ...form, kind })}
            />{' '}
            {kind === 'customer' ? 'A customer (email or phone)' : 'A user of the merchant (user id)'}
          </label>
        ))}
      </fieldset>
      <label className="field">
        {form.kind === 'customer' ? 'Customer email or phone' : 'User id'}
        <input
          data-testid="erasure-subject"
          value={form.id}
          maxLength={320}
          autoComplete="off"
          placeholder={form.kind === 'customer' ? 'carol@example.com or +254 712 345 678' : 'user-42'}
          onChange={(event) => setForm({ ...form, id: event.target.value })}
        />
        {problem('id') && <span className="field-error small">{problem('id')}</span>}
      </label>
      <label className="field">
        Why
        <textarea
          data-testid="erasure-reason"
          value={form.reason}
          maxLength={500}
          placeholder="DPO ticket 1234, request of 2026-11-29"
          onChange={(event) => setForm({ ...form, reason: event.target.value })}
        />
        {problem('reason') ? (
          <span className="field-error small">{problem('reason')}</span>
        ) : (
          <span className="muted small field-hint">Recorded in the ledger: a ticket or a date, never the person’s email or phone.</span>
        )}
      </label>
      {propose.isError && <ProblemNotice error={propose.error} prefix="Not proposed" testId="erasure-problem" />}
      <div className="row-actions">
        <button type="submit" className="button button-primary" data-testid="erasure-submit" disabled={propose.isPending}>
          {propose.isPending ? 'Proposing…' : 'Propose the erasure'}
        </button>
      </div>
    </form>
  );
}

/** The proposal made: whom it names, its id, and where the second admin approves it. */
function Proposed({ proposal, onDone }: { proposal: Proposal; onDone: () => void }) {
  return (
    <div className="notice notice-success" role="status" data-testid="erasure-result" data-proposal-id={proposal.id}>
      <strong>Proposed.</strong> The erasure of {subjectLabel(proposal.target.id)} (proposal <span className="mono">{proposal.id}</span>) waits for a second
      admin before {formatDateTime(proposal.expiresAt)}.
      <div className="notice-actions">
        <Link href={proposalHref(proposal.id)} className="button" data-testid="erasure-open-proposal">
          Open the proposal
        </Link>
        <button type="button" className="button button-ghost" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/**
 * "Erase a person’s data…" (operators and admins; docs/privacy.md, "Erasure"): a button opening
 * the erasure form in a dialog; the erasure runs once a second admin approves the proposal.
 */
export function ProposeErasure({ role }: { role: Role }) {
  const [open, setOpen] = useState(false);
  if (!PROPOSERS.has(role)) return null;
  return (
    <>
      <button type="button" className="button" data-testid="propose-erasure" onClick={() => setOpen(true)}>
        Erase a person’s data…
      </button>
      {open && (
        <Dialog title="Erase a person’s data" onClose={() => setOpen(false)} testId="erasure-dialog">
          <ErasureFormView onDone={() => setOpen(false)} />
        </Dialog>
      )}
    </>
  );
}
