import type { IncomingMessage, ServerResponse } from 'node:http';
import { problemResult, type ReceiveResult, type WebhookReceiver } from './receiver.js';

/** Options of {@link createNodeHandler}. */
export interface NodeHandlerOptions {
  /** Largest body read, in bytes; a larger one is answered 413. Default 262144 (256 KiB). */
  readonly limitBytes?: number;
}

/** A request as frameworks may hand it over, with a raw body already read by a raw-body parser. */
type RequestWithBody = IncomingMessage & { body?: unknown; rawBody?: unknown };

class TooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new TooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new TooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The raw body a framework already read, `null` when the stream is still unread, `undefined` when it is lost. */
function alreadyRead(req: RequestWithBody): Buffer | null | undefined {
  if (Buffer.isBuffer(req.rawBody)) return req.rawBody; // NestJS `rawBody: true`, fastify-raw-body
  if (Buffer.isBuffer(req.body)) return req.body; // express.raw()
  if (typeof req.body === 'string') return Buffer.from(req.body); // express.text()
  if (req.body !== undefined || req.readableEnded) return undefined; // a JSON parser ran first
  return null;
}

function send(res: ServerResponse, result: ReceiveResult, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const body = JSON.stringify(result.body);
  res.writeHead(result.status, { ...result.headers, ...extraHeaders, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * A plain Node request listener for the webhook endpoint: `(req, res) => void`. It reads the
 * raw body itself, up to `limitBytes` (413 `RECEIVER.PAYLOAD_TOO_LARGE` beyond), or takes the raw
 * bytes a framework already read (`req.rawBody` Buffer, or `req.body` as a Buffer from
 * `express.raw()`), then answers with `Receiver.receive`. Works with `node:http`, with
 * Express mounted before any JSON body parser or after `express.raw({ type: 'application/json' })`,
 * and with Fastify through `reply.hijack()` and `request.raw` (see the README).
 *
 * A request whose body a JSON parser already consumed is answered 500
 * `RECEIVER.RAW_BODY_UNAVAILABLE`: the signature is over the raw bytes, which are gone. Methods
 * other than POST are answered 405 `RECEIVER.METHOD_NOT_ALLOWED`.
 *
 * @param receiver - the receiver to answer with.
 * @param options - {@link NodeHandlerOptions}.
 */
export function createNodeHandler(receiver: WebhookReceiver, options: NodeHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = options.limitBytes ?? 262_144;
  return (req, res) => {
    void (async () => {
      if (req.method !== 'POST') {
        send(res, problemResult('RECEIVER.METHOD_NOT_ALLOWED', 'the webhook endpoint accepts POST only'), { allow: 'POST' });
        return;
      }
      let raw = alreadyRead(req);
      if (raw === undefined) {
        send(
          res,
          problemResult(
            'RECEIVER.RAW_BODY_UNAVAILABLE',
            'a body parser consumed the request before the receiver; mount it before JSON parsers or after a raw-body parser',
          ),
        );
        return;
      }
      if (raw === null) {
        try {
          raw = await readBody(req, limit);
        } catch (error) {
          if (!(error instanceof TooLarge)) throw error;
          send(res, problemResult('RECEIVER.PAYLOAD_TOO_LARGE', `the body exceeds ${limit} bytes`), { connection: 'close' });
          req.resume();
          return;
        }
      } else if (raw.length > limit) {
        send(res, problemResult('RECEIVER.PAYLOAD_TOO_LARGE', `the body exceeds ${limit} bytes`));
        return;
      }
      send(res, await receiver.receive(raw, req.headers));
    })().catch(() => {
      // The client went away mid-body; there is nobody to answer.
      if (!res.headersSent) res.destroy();
    });
  };
}
