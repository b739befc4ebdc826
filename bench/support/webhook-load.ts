import { createHmac } from 'node:crypto';
import autocannon from 'autocannon';
import { chargeSuccessBody } from './paystack-charge.js';
import { cpuDelta, snapshot, type CpuDelta, type Groups } from './proc.js';

/*
 * Closed-loop HTTP load of signed Paystack webhooks (autocannon), with the CPU of process
 * groups read around it.
 */

/** What one closed-loop load measured. */
export interface LoadResult {
  seconds: number;
  ok: number;
  non2xx: number;
  statuses: Map<number, number>;
  socketErrors: number;
  timeouts: number;
  errorCodes: Map<string, number>;
  /** 2xx latencies in ms, sorted (autocannon's own histogram keeps whole milliseconds). */
  latencies: Float64Array;
  cpu: CpuDelta;
}

/**
 * Closed-loop load: `connections` keep-alive connections, one request in flight each, for
 * `seconds`. Every request is a new event: `setupRequest` builds a body with a fresh
 * reference and signs it. CPU of `groups` is read just before the first and just after the
 * last request.
 */
export async function signedWebhookLoad(options: {
  url: string;
  /** Path the webhooks are POSTed to. */
  path: string;
  secret: string;
  seconds: number;
  connections: number;
  referencePrefix: string;
  groups: Groups;
}): Promise<LoadResult> {
  let n = 0;
  const setupRequest = (request: autocannon.Request): autocannon.Request => {
    n += 1;
    const body = Buffer.from(chargeSuccessBody(`${options.referencePrefix}-${n.toString(36)}`, n));
    request.body = body;
    request.headers = {
      ...request.headers,
      'content-type': 'application/json',
      'x-paystack-signature': createHmac('sha512', options.secret).update(body).digest('hex'),
    };
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
        connections: options.connections,
        pipelining: 1,
        duration: options.seconds,
        timeout: 10,
        requests: [{ method: 'POST', path: options.path, setupRequest }],
      },
      (error, res) => (error ? reject(error as Error) : resolve(res)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
    instance.on('reqError', (error: { code?: string; message?: string }) => {
      socketErrors += 1;
      const code = error?.code ?? error?.message ?? 'unknown';
      errorCodes.set(code, (errorCodes.get(code) ?? 0) + 1);
    });
  });
  const cpu = cpuDelta(before, snapshot(options.groups));
  let ok = 0;
  let non2xx = 0;
  for (const [status, count] of statuses) {
    if (status >= 200 && status < 300) ok += count;
    else non2xx += count;
  }
  return {
    seconds: cpu.wallMs / 1000,
    ok,
    non2xx,
    statuses,
    socketErrors: Math.max(socketErrors, result.errors),
    timeouts: result.timeouts,
    errorCodes,
    latencies: Float64Array.from(latencies).sort(),
    cpu,
  };
}
