import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { call } from '../api/client';
import { PROPOSALS_KEY } from '../api/proposals';
import type { Proposal, UnmatchedPayment } from '../api/types';
import { formatDateTime, formatMoney, providerLabel } from '../lib/format';
import { checkMatchForm, EMPTY_MATCH_FORM, matchFieldOfPath, toMinorUnits, type MatchField, type MatchFormValues } from '../lib/match';
import { Link } from '../lib/router';
import { proposalHref } from '../lib/routes';
import { Dialog } from './Dialog';
import { Spinner } from './Feedback';
import { ProblemNotice } from './ProblemNotice';

/** The form's fields in order: label, test id, input attributes and a hint. */
const FIELDS: ReadonlyArray<{
  field: MatchField;
  label: string;
  testId: string;
  hint: string;
  input: { type?: string; placeholder?: string; list?: string; autoComplete?: string };
}> = [
  { field: 'entitlement', label: 'Entitlement', testId: 'match-entitlement', hint: 'As your checkout names it.', input: { placeholder: 'pro-monthly' } },
  { field: 'userId', label: 'User id', testId: 'match-user-id', hint: 'The user the payment is for, in your system.', input: {} },
  {
    field: 'accessPeriod',
    label: 'Access period',
    testId: 'match-access-period',
    hint: 'ISO 8601: P30D, P1M, P1Y.',
    input: { placeholder: 'P1M', list: 'match-access-periods' },
  },
  { field: 'currency', label: 'Currency', testId: 'match-currency', hint: 'ISO 4217, such as NGN.', input: { placeholder: 'NGN' } },
  {
    field: 'amount',
    label: 'Amount',
    testId: 'match-amount',
    hint: 'In major units, as your price list writes it: 1500.00.',
    input: { placeholder: '0.00', autoComplete: 'off' },
  },
  { field: 'email', label: 'Customer e-mail', testId: 'match-email', hint: 'The e-mail, the phone, or both.', input: { type: 'email', autoComplete: 'off' } },
  { field: 'phone', label: 'Customer phone', testId: 'match-phone', hint: 'International: +234 801 234 5678.', input: { type: 'tel', autoComplete: 'off' } },
];

/** Labels of the form's fields, for the API's field paths. */
function labelOfPath(path: string): string {
  const field = matchFieldOfPath(path);
  return FIELDS.find((f) => f.field === field)?.label ?? path;
}

/** The amount as it will be sent, under the field: `= ₦900.00 (90000 minor units)`, once currency and amount read. */
function AmountPreview({ values }: { values: MatchFormValues }) {
  const read = values.amount.trim() ? toMinorUnits(values.amount, values.currency) : null;
  if (!read?.ok) return null;
  const currency = values.currency.trim().toUpperCase();
  return (
    <span className="muted small" data-testid="match-amount-preview">
      = {formatMoney(read.minor, currency)} ({read.minor} minor units)
    </span>
  );
}

/** What the operator sees once the proposal is made: its id and status, and that a second admin must approve it. */
function Proposed({ proposal, onDone }: { proposal: Proposal; onDone: () => void }) {
  return (
    <div className="notice notice-success match-result" role="status" data-testid="match-result" data-proposal-id={proposal.id} data-status={proposal.status}>
      <strong>Proposed: {proposal.status}</strong>
      <p>
        Proposal <span className="mono">{proposal.id}</span> waits for a second admin, who approves it on the Proposals page before{' '}
        {formatDateTime(proposal.expiresAt)}. Nothing is registered until then.
      </p>
      <div className="notice-actions">
        <Link href={proposalHref(proposal.id)} className="button" data-testid="match-open-proposal">
          Open the proposal
        </Link>
        <button type="button" className="button button-ghost" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** One labelled field of the match form, with its hint or, after a try, what is wrong with it. */
function FormField({ label, error, hint, children }: { label: string; error: string | undefined; hint: string; children: ReactNode }) {
  return (
    <label className="field">
      {label}
      {children}
      {error ? <span className="field-error small">{error}</span> : <span className="muted small field-hint">{hint}</span>}
    </label>
  );
}

/**
 * The match form of an unmatched payment (docs/unmatched-payments.md): the checkout's terms as
 * the operator's own source states them (order system, price list). It opens empty, never
 * filled from the provider's answer: only the reference and the provider are fixed. The amount
 * is typed in major units and sent in minor units ({@link checkMatchForm}); submitting creates a
 * proposal (`POST /api/v1/unmatched-payments/:reference/match-proposals`) that a second admin
 * approves on the Proposals page.
 */
export function MatchForm({ payment, onDone }: { payment: Pick<UnmatchedPayment, 'reference' | 'provider'>; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<MatchFormValues>({ ...EMPTY_MATCH_FORM });
  const [tried, setTried] = useState(false);
  const checked = checkMatchForm(values);
  const propose = useMutation({
    mutationFn: (terms: Extract<typeof checked, { ok: true }>['terms']) =>
      call('post', '/api/v1/unmatched-payments/{reference}/match-proposals', { path: { reference: payment.reference }, body: terms }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: PROPOSALS_KEY }),
  });
  if (propose.isSuccess) return <Proposed proposal={propose.data} onDone={onDone} />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (checked.ok && !propose.isPending) propose.mutate(checked.terms);
  };
  const errors = tried && !checked.ok ? checked.errors : {};
  return (
    <form className="match-form" onSubmit={submit} noValidate data-testid="match-form">
      <dl className="fields match-fixed">
        <div className="field-view">
          <dt>Reference</dt>
          <dd className="mono" data-testid="match-reference">
            {payment.reference}
          </dd>
        </div>
        <div className="field-view">
          <dt>Provider</dt>
          <dd>{providerLabel(payment.provider)}</dd>
        </div>
      </dl>
      <p className="muted small">
        State the checkout’s terms from your own source (the order, the price list), not from the provider’s answer: the four checks compare them with it once a
        second admin approves, and a different amount, currency or customer ends in State Mismatch.
      </p>
      <div className="form-grid">
        {FIELDS.map(({ field, label, testId, hint, input }) => (
          <FormField key={field} label={label} error={errors[field]} hint={hint}>
            <input
              {...input}
              name={field}
              data-testid={testId}
              value={values[field]}
              aria-invalid={errors[field] ? true : undefined}
              onChange={(event) => setValues((old) => ({ ...old, [field]: event.target.value }))}
            />
            {field === 'amount' && <AmountPreview values={values} />}
          </FormField>
        ))}
      </div>
      <datalist id="match-access-periods">
        {['P7D', 'P30D', 'P1M', 'P3M', 'P6M', 'P1Y'].map((period) => (
          <option key={period} value={period} />
        ))}
      </datalist>
      {propose.isError && <ProblemNotice error={propose.error} prefix="Not proposed" testId="match-problem" labelOf={labelOfPath} />}
      <div className="page-actions">
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" data-testid="match-submit" disabled={propose.isPending}>
          {propose.isPending ? <Spinner label="Proposing" /> : null}
          {propose.isPending ? 'Proposing…' : 'Propose the match'}
        </button>
      </div>
    </form>
  );
}

/**
 * "Match to a checkout…" on an open unmatched payment's row (operators and admins): opens
 * {@link MatchForm} in a dialog. While a match of the payment waits for approval (`pending`), the
 * row links to that proposal instead (the API takes one pending proposal per payment); the
 * dialog stays open over that change, so its result stays in view.
 */
export function MatchToCheckout({
  payment,
  pending,
}: {
  payment: Pick<UnmatchedPayment, 'reference' | 'provider'>;
  pending?: Pick<Proposal, 'id'> | undefined;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      {pending ? (
        <Link href={proposalHref(pending.id)} className="small" data-testid="match-pending">
          Match proposed: waiting for a second admin
        </Link>
      ) : (
        <button type="button" className="button button-small" data-testid="match-unmatched" onClick={() => setOpen(true)}>
          Match to a checkout…
        </button>
      )}
      {open && (
        <Dialog title="Match to a checkout" onClose={() => setOpen(false)} testId="match-dialog">
          <MatchForm payment={payment} onDone={() => setOpen(false)} />
        </Dialog>
      )}
    </>
  );
}
