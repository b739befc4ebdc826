import { createHash } from 'node:crypto';
import fastifyHelmet from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';

/**
 * The security headers of every Settle HTTP answer (docs/api.md, "Security headers"), set by
 * `@fastify/helmet` (Helmet's defaults: `Strict-Transport-Security`, `X-Content-Type-Options:
 * nosniff`, `Cross-Origin-Opener-Policy` and `Cross-Origin-Resource-Policy: same-origin`,
 * `Origin-Agent-Cluster`, `X-DNS-Prefetch-Control: off`, `X-Permitted-Cross-Domain-Policies:
 * none`, `X-XSS-Protection: 0`), with Settle's choices: a Content-Security-Policy per app,
 * `X-Frame-Options: DENY` and `frame-ancestors 'none'` (no page of Settle's is ever framed),
 * `Referrer-Policy: no-referrer`, and a `Permissions-Policy` that turns off every powerful
 * feature (Helmet sets none).
 */

/** A Content-Security-Policy as directives (CSP Level 3 names) and their source lists. */
export type CspDirectives = Readonly<Record<string, readonly string[]>>;

/**
 * The policy of an answer no browser should render (the JSON APIs of ingestion and the
 * dispatcher): nothing may load, nothing may frame it.
 */
export const API_CONTENT_SECURITY_POLICY: CspDirectives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The policy of a single-page app served with its own assets (the console's web app, built by
 * Vite into script and style files: no inline script or style in its HTML, React's `style`
 * props set through the CSSOM, which CSP does not restrict): scripts, styles, fonts and
 * requests from its own origin, images from its origin and `data:` (its favicon), nothing else.
 */
export const WEB_APP_CONTENT_SECURITY_POLICY: CspDirectives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * `Permissions-Policy` (W3C Permissions Policy): every powerful feature a page could ask for,
 * off for every origin, Settle's pages included (none of them uses one).
 */
export const PERMISSIONS_POLICY = [
  'accelerometer',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'usb',
]
  .map((feature) => `${feature}=()`)
  .join(', ');

/** A policy as its header value. */
export function cspHeader(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/**
 * Registers the security headers on an app, before `app.init()` (its routes are registered
 * then): Helmet with the app's Content-Security-Policy, and the `Permissions-Policy`.
 *
 * @param policy - the app's policy for every answer ({@link API_CONTENT_SECURITY_POLICY} or
 *   {@link WEB_APP_CONTENT_SECURITY_POLICY}); Swagger UI's page relaxes it for itself
 *   ({@link relaxInlineStylesUnder}, from `serveOpenApi`).
 */
export async function installSecurityHeaders(app: NestFastifyApplication, policy: CspDirectives): Promise<void> {
  await app.register(fastifyHelmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: toHelmetDirectives(policy) },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (_request, reply, done) => {
      void reply.header('permissions-policy', PERMISSIONS_POLICY);
      done();
    });
}

/** Helmet takes each directive's sources as a mutable array. */
function toHelmetDirectives(policy: CspDirectives): Record<string, string[]> {
  return Object.fromEntries(Object.entries(policy).map(([name, sources]) => [name, [...sources]]));
}

/** `<style>` elements' text and `style` attributes' values of an HTML page, as written. */
function inlineStyles(html: string): string[] {
  const blocks = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]!);
  const attributes = [...html.matchAll(/\sstyle\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)].map((m) => m[1] ?? m[2]!);
  return [...blocks, ...attributes];
}

/**
 * The policy of a page that needs its own inline styles and nothing more (Swagger UI's page,
 * whose HTML holds two `<style>` elements and a `style` attribute): `base` with `style-src`
 * widened by the SHA-256 hash of each inline style the page holds (and `'unsafe-hashes'` so that
 * a hash also covers a `style` attribute, CSP Level 3), and `img-src` by `data:` (its
 * stylesheet's icons). Its scripts stay files of its own origin: no inline script is allowed.
 */
export function relaxForInlineStyles(base: CspDirectives, html: string): CspDirectives {
  const hashes = [...new Set(inlineStyles(html))].map((text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
  const self = (name: string) => (base[name] ?? base['default-src'] ?? []).filter((s) => s !== "'none'");
  return {
    ...base,
    'script-src': [...new Set([...self('script-src'), "'self'"])],
    'style-src': [...new Set([...self('style-src'), "'self'", ...(hashes.length > 0 ? ["'unsafe-hashes'", ...hashes] : [])])],
    'img-src': [...new Set([...self('img-src'), "'self'", 'data:'])],
    'connect-src': [...new Set([...self('connect-src'), "'self'"])],
  };
}

/** A Content-Security-Policy header value as directives. */
export function parseCsp(header: string): CspDirectives {
  const directives: Record<string, string[]> = {};
  for (const part of header.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives[name.toLowerCase()] = sources;
  }
  return directives;
}

/**
 * Gives the HTML pages served under a path prefix (Swagger UI's) the policy their inline styles
 * need: {@link relaxForInlineStyles} of the policy the app already set on the answer, computed
 * from each page as it is sent.
 */
export function relaxInlineStylesUnder(instance: FastifyInstance, prefix: string): void {
  instance.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?')[0]!;
    if (path !== prefix && !path.startsWith(`${prefix}/`)) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html') || typeof payload !== 'string') return payload;
    const base = parseCsp(String(reply.getHeader('content-security-policy') ?? cspHeader(API_CONTENT_SECURITY_POLICY)));
    void reply.header('content-security-policy', cspHeader(relaxForInlineStyles(base, payload)));
    return payload;
  });
}
