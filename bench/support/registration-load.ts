import autocannon from 'autocannon';
import { cpuDelta, snapshot, type CpuDelta, type Groups } from './proc.js';

/*
 * Closed-loop HTTP load of checkout registrations (`POST /v1/checkouts`, autocannon): a fixed
 * number of requests, each a new checkout, with the CPU of process groups read around it.
 */

/** What one registration load measured. */
export interface RegistrationLoadResult {
  /** Requests sent (`amount`). */
  sent: number;
  /** Answered 202: registered. */
  accepted: number;
  /** Answers by status. */
  statuses: Map<number, number>;
  socketErrors: number;
  timeouts: number;
  errorCodes: Map<string, number>;
  /** From just before the first request to just after the last answer, seconds. */
  seconds: number;
  /** Request → 202 latencies in ms, ascending (autocannon keeps whole milliseconds). */
  latencies: Float64Array;
  /** CPU of `groups` over the same window. */
  cpu: CpuDelta;
}

/**
 * Sends `count` registrations on `connections` keep-alive connections, one request in flight
 * each (closed loop: a connection sends its next request when its answer came), and waits for
 * every answer. Request `n` (0-based) carries `body(n)`, built as it is sent. CPU of `groups` is
 * read just before the first request and just after the last answer.
 *
 * @param options.apiKey - sent as `Authorization: Bearer <apiKey>`.
 * @throws when autocannon cannot start (a bad URL, more connections than requests).
 */
export async function registrationLoad(options: {
  url: string;
  apiKey: string;
  count: number;
  connections: number;
  body: (n: number) => object;
  groups: Groups;
}): Promise<RegistrationLoadResult> {
  let n = 0;
  const setupRequest = (request: autocannon.Request): autocannon.Request => {
    request.body = JSON.stringify(options.body(n));
    n += 1;
    return request;
  };
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const errorCodes = new Map<string, number>();
  let socketErrors = 0;
  const before = snapshot(options.groups);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: Math.min(options.connections, options.count),
        pipelining: 1,
        amount: options.count,
        timeout: 30,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
        requests: [{ method: 'POST', path: '/v1/checkouts', setupRequest }],
      },
      (error, res) => (error ? reject(error as Error) : resolve(res)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      if (statusCode === 202) latencies.push(responseTime);
    });
    instance.on('reqError', (error: { code?: string; message?: string }) => {
      socketErrors += 1;
      const code = error?.code ?? error?.message ?? 'unknown';
      errorCodes.set(code, (errorCodes.get(code) ?? 0) + 1);
    });
  });
  const cpu = cpuDelta(before, snapshot(options.groups));
  return {
    sent: n,
    accepted: statuses.get(202) ?? 0,
    statuses,
    socketErrors: Math.max(socketErrors, result.errors),
    timeouts: result.timeouts,
    errorCodes,
    seconds: cpu.wallMs / 1000,
    latencies: Float64Array.from(latencies).sort(),
    cpu,
  };
}
