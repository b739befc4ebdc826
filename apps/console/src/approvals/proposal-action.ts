/** Who decided an approved proposal, for an action that records them (a settlement by override names both people). */
export interface ProposalDecision {
  readonly proposalId: string;
  /** E-mails. */
  readonly proposedBy: string;
  readonly approvedBy: string;
}

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
}
