/**
 * A customer endpoint stand-in for delivery tests, run as its own process
 * (`node scripts/harness/endpoint-server.ts`; Node 24 runs TypeScript directly). It verifies
 * each delivery's Standard Webhooks signature with the `standardwebhooks` package, records it,
 * and answers as scripted:
 *
 * - `POST /_control` `{ "script": [{ "status": 500 }, { "status": 429, "retryAfter": "1" }, { "delayMs": 3000 }], "otherwise": { "status": 200 }, "paths": { "/slow": { "delayMs": 5000 } } }`:
 *   the next deliveries take the scripted answers in order, then `otherwise`; a path listed in
 *   `paths` always takes its own answer (two endpoints on one host, one of them slow);
 * - `GET /_received`: every delivery received, in order, with its verification result;
 * - `GET /_stats`: `{ received, answered }`, the deliveries received and those answered 2xx;
 * - any other `POST`: a delivery.
 *
 * Environment: `PORT` (0: any free port), `SECRETS` (comma-separated `whsec_` secrets; empty:
 * not verified). Prints `listening <port>` once ready.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { EndpointAnswer as Answer, ReceivedDelivery as Received } from './endpoints.js';

let secrets = (process.env.SECRETS ?? '').split(',').filter(Boolean);
let script: Answer[] = [];
let otherwise: Answer = { status: 200 };
let paths: Record<string, Answer> = {};
const received: Received[] = [];

function verified(body: string, headers: Record<string, string | string[] | undefined>): boolean {
  const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v[0]! : (v ?? '')]));
  return secrets.some((secret) => {
    try {
      new Webhook(secret).verify(body, flat);
      return true;
    } catch {
      return false;
    }
  });
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/_stats' && req.method === 'GET') {
      const answered = received.filter((r) => r.answered < 300).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: received.length, answered }));
      return;
    }
    if (req.url === '/_received' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
      return;
    }
    if (req.url === '/_control' && req.method === 'POST') {
      const control = JSON.parse(body) as { script?: Answer[]; otherwise?: Answer; secrets?: string[]; paths?: Record<string, Answer> };
      script = control.script ?? [];
      otherwise = control.otherwise ?? { status: 200 };
      paths = control.paths ?? {};
      if (control.secrets) secrets = control.secrets;
      res.writeHead(204).end();
      return;
    }
    const answer = paths[req.url ?? ''] ?? script.shift() ?? otherwise;
    let eventId: string | null = null;
    try {
      eventId = (JSON.parse(body) as { event_id?: string }).event_id ?? null;
    } catch {
      eventId = null;
    }
    const status = answer.status ?? 200;
    received.push({
      eventId,
      webhookId: (req.headers['webhook-id'] as string | undefined) ?? null,
      timestamp: (req.headers['webhook-timestamp'] as string | undefined) ?? null,
      traceparent: (req.headers['traceparent'] as string | undefined) ?? null,
      signatures: String(req.headers['webhook-signature'] ?? '')
        .split(' ')
        .filter(Boolean).length,
      verified: verified(body, req.headers),
      answered: status,
      at: Date.now(),
      body,
    });
    const reply = () => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...(answer.retryAfter ? { 'retry-after': answer.retryAfter } : {}) });
      res.end(answer.body ?? JSON.stringify({ received: status < 300 }));
    };
    if (answer.delayMs) setTimeout(reply, answer.delayMs);
    else reply();
  });
});

server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
