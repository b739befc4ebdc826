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
   * @returns a short summary for the audit trail and the answer.
   */
  run(targetId: string, parameters: P): Promise<Record<string, unknown>>;
}
