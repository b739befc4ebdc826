import type { Secret } from '@settle/config';
import { traceCarrierOf } from '@settle/platform';
import { ConsoleError } from '../errors.js';

/** Longest wait for ingestion's answer, milliseconds. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Where ingestion's admin API is and how the console authenticates to it. */
export interface IngestionAdminOptions {
  /** Ingestion's base URL (`CONSOLE_INGESTION_URL`). */
  baseUrl: string;
  /** The admin API key ingestion accepts (`CONSOLE_INGESTION_ADMIN_API_KEY`), sent as `Authorization: Bearer`. */
  adminApiKey: Secret;
  /** Longest wait for the answer, milliseconds; default 10 000. */
  timeoutMs?: number;
}

/**
 * One `POST` to ingestion's admin API (`path` relative to its base URL, `body` as JSON when
 * given), the operator's trace continuing into it. Answers whatever status ingestion gave below
 * 500, with its JSON body (`null` when unreadable), for the caller to read; `what` names the
 * request in errors.
 *
 * @throws ConsoleError `CONSOLE.INGESTION_UNAVAILABLE` when ingestion does not answer in time, or
 *   answers 429 or 5xx (retry later).
 */
export async function postToIngestionAdmin(
  options: IngestionAdminOptions,
  path: string,
  what: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const url = new URL(path, options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.adminApiKey.reveal()}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...traceCarrierOf(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
  } catch {
    throw new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', `Ingestion did not answer the ${what}; retry later`);
  }
  if (response.status >= 500 || response.status === 429) {
    await response.body?.cancel();
    throw new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', `Ingestion answered ${response.status} to the ${what}; retry later`);
  }
  const parsed: unknown = await response.json().catch(() => null);
  return { status: response.status, body: typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null };
}
