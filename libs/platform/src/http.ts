/** Small HTTP helpers shared by the apps that call out over HTTP (providers, customer endpoints). */

/**
 * Reads a `Retry-After` header (RFC 9110 section 10.2.3): either delay-seconds (a
 * non-negative integer) or an HTTP date.
 *
 * @param value - the header value; for a repeated header the first one is used.
 * @param nowMs - the current time, epoch milliseconds; callers pass the answer's `Date`
 *   header when it has one, so a skewed local clock does not distort an HTTP-date hint.
 * @returns the delay in milliseconds (0 for a date in the past), or `undefined` when the
 *   header is absent or unreadable.
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const raw = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) {
    const seconds = Number(raw);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : undefined;
  }
  // HTTP-date in any of its three forms (IMF-fixdate, RFC 850, asctime) starts with a day
  // name and has a hh:mm:ss time; anything else is not handed to the lenient Date.parse.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? .*\b\d{2}:\d{2}:\d{2}\b/.test(raw)) return undefined;
  // asctime carries no zone; HTTP dates are always UTC (RFC 9110 section 5.6.7).
  const at = Date.parse(/\b(GMT|UTC)\b/.test(raw) ? raw : `${raw} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * The `Retry-After` delay of an answer (see {@link parseRetryAfter}), an HTTP date read against
 * the answer's own `Date` header when it has a readable one, else against `localNowMs`.
 *
 * @param headers - the answer's headers, lower-case names (as undici and node:http give them).
 * @param localNowMs - the local clock, epoch milliseconds.
 * @returns the delay in milliseconds, or `undefined` when there is no readable hint.
 */
export function retryAfterFromAnswer(headers: Record<string, string | readonly string[] | undefined>, localNowMs: number): number | undefined {
  const date = headers['date'];
  const serverNowMs = Date.parse((typeof date === 'string' ? date : date?.[0]) ?? '');
  return parseRetryAfter(headers['retry-after'], Number.isNaN(serverNowMs) ? localNowMs : serverNowMs);
}
