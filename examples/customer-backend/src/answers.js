/**
 * How long the receiver kit took to answer deliveries, kept in memory for `GET /stats/answers`
 * (the kit's `observe` option; a real backend would feed a metrics histogram instead).
 */

/** The most recent answers kept, at most. */
const CAPACITY = 200_000;

export function answerTimes() {
  /** @type {Float64Array} */
  const durations = new Float64Array(CAPACITY);
  let count = 0;

  return {
    /** @param {import('@settle/receiver').AnswerObservation} answer */
    observe(answer) {
      if (answer.status !== 200) return;
      durations[count % CAPACITY] = answer.durationMs;
      count += 1;
    },
    /** Percentiles of the 200 answers kept, milliseconds. */
    summary() {
      const kept = durations.slice(0, Math.min(count, CAPACITY)).sort();
      const at = (q) => (kept.length === 0 ? null : kept[Math.min(kept.length - 1, Math.floor(q * kept.length))]);
      return { answered: count, p50_ms: at(0.5), p99_ms: at(0.99), p999_ms: at(0.999), max_ms: kept.length === 0 ? null : kept[kept.length - 1] };
    },
    reset() {
      count = 0;
    },
  };
}
