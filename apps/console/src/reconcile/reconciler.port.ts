/** What a manual reconciliation answered: the transaction's state once ingestion took the request. */
export interface ReconcileAnswer {
  reference: string;
  state: string;
}

/**
 * Manual reconciliation, the spec's fourth trigger (docs/spec.md, section 1: "an admin triggers
 * manual reconciliation in the console"): a fresh verification of one reference through the
 * same path as ingestion's. The adapter is {@link IngestionReconciler} (ingestion's admin API).
 */
export interface Reconciler {
  /**
   * Requests a verification of a reference now.
   *
   * @throws ConsoleError `CONSOLE.TRANSACTION_NOT_FOUND` when no checkout is registered under it,
   *   `CONSOLE.INGESTION_UNAVAILABLE` when ingestion is down, slow or failing,
   *   `CONSOLE.INGESTION_REJECTED` when it refuses the console's key or request.
   */
  reconcile(reference: string): Promise<ReconcileAnswer>;
}
