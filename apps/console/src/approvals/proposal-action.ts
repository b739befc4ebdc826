/** Who decided an approved proposal, for an action that records them (a settlement by override names both people). */
export interface ProposalDecision {
  readonly proposalId: string;
  /** E-mails. */
  readonly proposedBy: string;
  readonly approvedBy: string;
}

/**
 * A proposal's target id and parameters as they are recorded in the ledger and stored
 * (`protect`ed), or as people and the action see them (`reveal`ed).
 */
export interface ProposalTerms {
  readonly targetId: string;
  readonly parameters: Record<string, unknown>;
}

/**
 * Why a proposal's terms are revealed: to `run` the approved action (a value that cannot be
 * opened refuses the run); to `view` them in the console's answers to the people who decide
 * proposals, operators and admins (opened; a value that cannot be opened reads `erased` or
 * `unavailable`); or `view-masked` in a viewer's answers (docs/privacy.md: the personal values in
 * their masked forms, `c•••@example.com`, `+254•••678`, never opened; `erased` and `unavailable`
 * as for `view`).
 */
export type RevealPurpose = 'run' | 'view' | 'view-masked';

/**
 * One kind of sensitive admin action that needs a second admin (docs/approvals.md): how its
 * parameters are checked when it is proposed, and how it runs once approved.
 */
export interface ProposalAction<P = unknown> {
  /** Stable name (`unmatched_payment.match`), the proposal's `action`. */
  readonly name: string;
  /** What it acts on (`unmatched_payment`), the proposal's target kind. */
  readonly targetKind: string;
  /**
   * The parameters as the proposer gave them, checked.
   *
   * @throws ProblemError 400 `REQUEST.VALIDATION_FAILED` naming the invalid fields.
   */
  parse(parameters: unknown): P;
  /**
   * Whether the target can take the action now (checked when proposed and again when approved).
   *
   * @throws the action's own errors (not found, not open).
   */
  check(targetId: string): Promise<void>;
  /**
   * Runs the approved action, with the parameters as proposed.
   *
   * @param decision - the proposal and the two people who decided it.
   * @returns a short summary for the audit trail and the answer.
   */
  run(targetId: string, parameters: P, decision: ProposalDecision): Promise<Record<string, unknown>>;
  /**
   * Optional, for an action whose target or parameters name a person (docs/privacy.md,
   * "Crypto-shredding"): seals the personal values under their data subject's key. The approval
   * service records in the ledger (`proposal.create`) and stores what this returns, never what it
   * was given; `check` is given the protected target id. An action without it is recorded as
   * proposed.
   *
   * @param parameters - as {@link parse} checked them.
   * @throws ConsoleError `CONSOLE.PRIVACY_VAULT_MISSING` (503) when there is no privacy vault to
   *   seal with; the vault's and the database's errors.
   */
  protect?(targetId: string, parameters: P): Promise<ProposalTerms>;
  /**
   * Opens what {@link protect} sealed (values stored before sealing existed are returned as they
   * are). For `run`, before {@link parse} and {@link run}; for `view` (an operator or admin) and
   * `view-masked` (a viewer: the values masked), in every proposal the console answers (never
   * stored). Never throws for either view.
   *
   * @throws ConsoleError, for `run` only: `CONSOLE.PRIVACY_VAULT_MISSING` (503),
   *   `CONSOLE.SUBJECT_ERASED` (409: the subject was erased since it was proposed),
   *   `CONSOLE.SUBJECT_KEY_UNAVAILABLE` (500).
   */
  reveal?(stored: ProposalTerms, purpose: RevealPurpose): Promise<ProposalTerms>;
}
