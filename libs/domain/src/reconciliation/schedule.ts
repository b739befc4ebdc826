/**
 * When reconciliation runs fall due (docs/reconciliation.md, "Runs"): an incremental run every
 * interval from the stored cursor with an overlap, and a daily run over the previous UTC day.
 * Pure: the reconciler stores the schedule and creates the runs this returns, in one transaction.
 */

/** Who starts a run: the schedule (`incremental`, `daily`), or someone on demand (console, `./settle reconcile`, the admin API). */
export const RECONCILIATION_RUN_KINDS = ['incremental', 'daily', 'on_demand'] as const;
/** One of {@link RECONCILIATION_RUN_KINDS}. */
export type ReconciliationRunKind = (typeof RECONCILIATION_RUN_KINDS)[number];

/** Where a run stands, as its `ReconciliationRunRecorded` records say. */
export const RECONCILIATION_RUN_STATUSES = ['started', 'progressed', 'completed', 'failed'] as const;

/** What is stored per provider between ticks. */
export interface ReconciliationSchedule {
  /** End of the last incremental window, ms since the epoch; `null` before the first. */
  readonly incrementalUntilMs: number | null;
  /** Last UTC day (`YYYY-MM-DD`) a daily run was created for; `null` before the first. */
  readonly dailyThrough: string | null;
}

/** Settings of the schedule (verifier configuration, docs/configuration.md). */
export interface ScheduleSettings {
  /** Between incremental runs, milliseconds (default one hour). */
  readonly intervalMs: number;
  /** How far each incremental window reaches back before the last one's end, milliseconds (default two hours). */
  readonly overlapMs: number;
  /** Whether a daily run over the previous UTC day is created. */
  readonly daily: boolean;
}

/** A run the schedule asks for: `[fromMs, untilMs)`, by the provider's creation time. */
export interface ScheduledRun {
  readonly kind: 'incremental' | 'daily';
  readonly fromMs: number;
  readonly untilMs: number;
}

const DAY_MS = 86_400_000;

/**
 * The runs due at `nowMs` and the schedule after them. The first incremental run covers the
 * overlap before now; later ones start `overlapMs` before the previous one's end, so a payment
 * whose status settled late at the provider is compared again. The daily run covers the whole
 * previous UTC day once, from midnight to midnight, and is not created for a day before the first
 * tick (a new install does not reconcile its past).
 */
export function dueRuns(schedule: ReconciliationSchedule, nowMs: number, settings: ScheduleSettings): { runs: ScheduledRun[]; next: ReconciliationSchedule } {
  const runs: ScheduledRun[] = [];
  let { incrementalUntilMs, dailyThrough } = schedule;
  if (incrementalUntilMs === null || nowMs - incrementalUntilMs >= settings.intervalMs) {
    const fromMs = (incrementalUntilMs ?? nowMs) - settings.overlapMs;
    runs.push({ kind: 'incremental', fromMs, untilMs: nowMs });
    incrementalUntilMs = nowMs;
  }
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const yesterday = utcDay(today - DAY_MS);
  if (settings.daily) {
    if (dailyThrough === null) dailyThrough = yesterday;
    else if (dailyThrough < yesterday) {
      runs.push({ kind: 'daily', fromMs: today - DAY_MS, untilMs: today });
      dailyThrough = yesterday;
    }
  }
  return { runs, next: { incrementalUntilMs, dailyThrough } };
}

/** `YYYY-MM-DD` of a UTC instant. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** One of {@link RECONCILIATION_RUN_STATUSES}. */
export type ReconciliationRunStatus = (typeof RECONCILIATION_RUN_STATUSES)[number];
